/**
 * A task's author as the single task shape shows them: the live user and their rating, read
 * through the two caches at once (one round trip when either is cold, none when both are warm).
 */
import { notFound } from "../../domain/errors.ts";
import type { Rating } from "../../domain/reviews/review.ts";
import type { TaskAuthor } from "../../domain/tasks/task_view.ts";
import type { StoredUser } from "../../kv/users/users.ts";
import type { Deps } from "../router/env.ts";

/** The live author with their rating; null when the account is gone. */
export async function authorOf(
  deps: Deps,
  userId: string,
): Promise<TaskAuthor | null> {
  let user: StoredUser | null | undefined = deps.userCache.peek(userId);
  let rating: Rating | null | undefined = deps.ratingCache.peek(userId);
  // Both in memory on a warm instance: no promise to wait for.
  if (user === undefined || rating === undefined) {
    [user, rating] = await Promise.all([
      deps.userCache.find(userId),
      deps.ratingCache.find(userId),
    ]);
  }
  // What a task shows of its author, not a copy of the whole account record.
  return user && rating
    ? { id: user.id, firstName: user.firstName, profilePic: user.profilePic, rating }
    : null;
}

/** The caller as the author of their own task, read before a write for its event's data. */
export async function ownAuthor(deps: Deps, userId: string): Promise<TaskAuthor> {
  const author = await authorOf(deps, userId);
  if (!author) throw notFound("User");
  return author;
}
