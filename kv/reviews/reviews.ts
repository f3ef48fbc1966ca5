/**
 * Reviews in KV: writing one (checked once per pair and direction, within the window, and shown
 * with its counterpart's in the same atomic when that one is waiting), and the two listings.
 */
import { type ApplicationRecord, effective } from "../../domain/application.ts";
import { AppError } from "../../domain/errors.ts";
import {
  assertMayReview,
  assertWindowOpen,
  type ReviewRecord,
  type ReviewWindow,
  windowClosesAt,
} from "../../domain/reviews/review.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import type { UserRecord } from "../../domain/users/user.ts";
import { getAll } from "../store/get_all.ts";
import { atomically } from "../commit.ts";
import { readNewestFirst } from "../cursor.ts";
import { applications, reviews, tasks, users } from "../keyspace.ts";
import { recordKey, refOf, reveal, type ReviewRef } from "./reveal.ts";
import { openReviewWindow } from "./window.ts";
import { isCancelledHelper } from "../history/task_helpers.ts";

const CONFLICT = "The task's reviews changed too often to complete the request; try again";

/** A review to write: the record without what the store decides (title, visibility). */
export type ReviewDraft = Omit<ReviewRecord, "taskTitle" | "visibleAt" | "published">;

/** Whether `userId`'s application to `task` (marker entry as read) stands accepted. */
function isAccepted(
  marker: Deno.KvEntryMaybe<string>,
  apps: Map<string, ApplicationRecord>,
  task: TaskRecord | null,
): boolean {
  const app = marker.value ? apps.get(marker.value) : undefined;
  return app !== undefined && effective(app, task).status === "accepted";
}

/**
 * Stores a review. One atomic checks: no review of this pair in this direction yet (the record's
 * key is the marker), the counterpart's review as read (absent, or hidden and shown here with
 * this one), the window's state (not closed meanwhile), and the reviewee's account. Answers the
 * review as stored: visible when the counterpart had reviewed first.
 */
export function createReview(
  kv: Deno.Kv,
  draft: ReviewDraft,
  now: number,
): Promise<ReviewRecord> {
  const { taskId, reviewerId, revieweeId } = draft;
  return atomically(CONFLICT, async () => {
    const [taskEntry, windowEntry, mine, theirs, reviewerMarker, revieweeMarker, reviewee] =
      await kv
        .getMany<
          [TaskRecord, ReviewWindow, ReviewRecord, ReviewRecord, string, string, UserRecord]
        >([
          tasks.record(taskId),
          reviews.window(taskId),
          reviews.record(taskId, reviewerId, revieweeId),
          reviews.record(taskId, revieweeId, reviewerId),
          applications.active(reviewerId, taskId),
          applications.active(revieweeId, taskId),
          users.record(revieweeId),
        ]);
    const appIds = [reviewerMarker.value, revieweeMarker.value].filter((id) => id !== null);
    const found = await getAll<ApplicationRecord>(kv, appIds.map((id) => applications.record(id)));
    const apps = new Map(found.filter((a) => a !== null).map((a) => [a.id, a]));
    // The helpers of a cancelled task are still its parties: they hear 409, not 404.
    const cancelledHelper = taskEntry.value?.status === "cancelled" &&
      await isCancelledHelper(kv, taskEntry.value, reviewerId);
    const task = assertMayReview({
      task: taskEntry.value,
      reviewerId,
      revieweeId,
      reviewerAccepted: isAccepted(reviewerMarker, apps, taskEntry.value) || cancelledHelper,
      revieweeAccepted: isAccepted(revieweeMarker, apps, taskEntry.value),
      revieweeDeleted: reviewee.value !== null && reviewee.value.deletedAt !== null,
    });
    if (mine.value) {
      throw new AppError("ALREADY_REVIEWED", "You already reviewed this person on this task");
    }
    const window = windowEntry.value ?? { closesAt: windowClosesAt(task)!, closed: false };
    assertWindowOpen(window, now);
    const at = new Date(now).toISOString();
    const review: ReviewRecord = { ...draft, taskTitle: task.title, visibleAt: null };
    const op = kv.atomic().check(windowEntry).check(mine).check(theirs).check(reviewee)
      .set(reviews.byReviewer(reviewerId, draft.orderKey), refOf(review));
    // A task completed before reviews existed has no window yet: its first review opens it.
    if (!windowEntry.value) openReviewWindow(op, task);
    if (theirs.value && theirs.value.visibleAt === null) {
      reveal(op, [theirs.value, review], at);
      return { value: { ...review, visibleAt: at }, op };
    }
    op.set(recordKey(review), review);
    return { value: review, op };
  });
}

/** A page of reviews, newest first, and the order key to continue after. */
export interface ReviewPage<T> {
  items: T[];
  next: string | null;
}

async function recordsOf(kv: Deno.Kv, refs: ReviewRef[]): Promise<ReviewRecord[]> {
  const records = await getAll<ReviewRecord>(kv, refs.map((ref) => reviews.record(...ref)));
  return records.filter((r): r is ReviewRecord => r !== null);
}

/** One page of the visible reviews about a user, each with its reviewer (null once deleted). */
export async function listReviewsAbout(
  kv: Deno.Kv,
  page: { userId: string; limit: number; before?: string },
): Promise<ReviewPage<{ review: ReviewRecord; reviewer: UserRecord | null }>> {
  const read = await readNewestFirst<ReviewRef>(kv, {
    prefix: reviews.byRevieweePrefix(page.userId),
    limit: page.limit,
    before: page.before,
  });
  const found = await recordsOf(kv, read.entries.map((e) => e.value));
  const reviewerIds = [...new Set(found.map((r) => r.reviewerId))];
  const people = await getAll<UserRecord>(kv, reviewerIds.map((id) => users.record(id)));
  const live = new Map(
    people.filter((u): u is UserRecord => u !== null && u.deletedAt === null).map((u) => [u.id, u]),
  );
  const items = found.map((review) => ({ review, reviewer: live.get(review.reviewerId) ?? null }));
  return { items, next: read.next };
}

/** One page of the reviews a user wrote, hidden ones included, newest first. */
export async function listOwnReviews(
  kv: Deno.Kv,
  page: { userId: string; limit: number; before?: string },
): Promise<ReviewPage<ReviewRecord>> {
  const read = await readNewestFirst<ReviewRef>(kv, {
    prefix: reviews.byReviewerPrefix(page.userId),
    limit: page.limit,
    before: page.before,
  });
  return { items: await recordsOf(kv, read.entries.map((e) => e.value)), next: read.next };
}
