/**
 * What each accepted helper of a cancelled task hears: `task.cancelled` `{task, reason}`, raised
 * through the webhook event machinery (kv/effects.ts) in the atomic that stores their application
 * as cancelled (kv/application_declines.ts), so each helper hears it once however many there are.
 */
import { type TaskCancelled, toTaskCancelled } from "../../domain/cancellation/cancelled_event.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { addEffects } from "../effects.ts";
import { readRating } from "../reviews/ratings.ts";
import { getUser } from "../users/users.ts";

/** The event's data: the task as GET shows it, with its author as stored now. */
export async function cancelledData(kv: Deno.Kv, task: TaskRecord): Promise<TaskCancelled> {
  const [user, rating] = await Promise.all([getUser(kv, task.userId), readRating(kv, task.userId)]);
  // An author whose account went after the cancellation is shown by the id alone.
  const author = {
    id: task.userId,
    firstName: user?.firstName ?? "",
    profilePic: user?.profilePic ?? null,
    rating,
  };
  return toTaskCancelled(task, author);
}

/** Adds to `op` the `task.cancelled` of one helper, raised at `now`. */
export async function addHelperCancelled(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  raised: { helperId: string; data: TaskCancelled; now: number },
): Promise<void> {
  const event = { type: "task.cancelled" as const, data: raised.data };
  await addEffects(kv, op, { userId: raised.helperId, now: raised.now, event });
}
