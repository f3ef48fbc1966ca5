/**
 * Reviews (docs/contract.md section 16): writing one on a completed task, the public listing of
 * the visible reviews about a user, and the caller's own reviews, hidden ones included.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { notFound } from "../../domain/errors.ts";
import {
  Review,
  ReviewAbout,
  ReviewCreate,
  toReview,
  toReviewAbout,
} from "../../domain/reviews/review.ts";
import { cursorPosition, encodeCursor } from "../../kv/cursor.ts";
import { orderKey } from "../../kv/order_key.ts";
import { createReview, listOwnReviews, listReviewsAbout } from "../../kv/reviews/reviews.ts";
import { getUser } from "../../kv/users/users.ts";
import { principalOf } from "../http/authenticate.ts";
import { defineRoute, jsonBody, jsonContent, problems } from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
import { cursorPage, CursorQuery, setNextPage } from "../http/paging.ts";

const IdParam = z.object({ id: z.uuid().openapi({ param: { name: "id", in: "path" } }) });

const reviewRoute = defineRoute({ scope: "reviews:write" }, {
  method: "post",
  path: "/tasks/{id}/reviews",
  tags: ["Reviews"],
  summary: "Review the other side of a completed task",
  description: "The task's creator reviews each accepted applicant; an accepted applicant " +
    "reviews the creator; once per person and task, within 14 days of completion. The review " +
    "stays hidden (visible: false) until the counterpart reviews back or the window closes; " +
    "then both show at once. A caller who is not a party gets 404; before completion 409 " +
    "TASK_NOT_COMPLETED; a reviewee who is not the caller's counterpart 403 NOT_A_PARTY; a " +
    "second review 409 ALREADY_REVIEWED; from 14 days after completion 409 REVIEW_WINDOW_CLOSED.",
  request: { params: IdParam, body: jsonBody(ReviewCreate) },
  responses: {
    201: jsonContent(Review, "The review as stored; visible when the counterpart reviewed first"),
    ...problems(400, 401, 403, 404, 409, 413, 415, 429),
  },
});

const aboutRoute = defineRoute("public", {
  method: "get",
  path: "/users/{id}/reviews",
  tags: ["Reviews"],
  summary: "The visible reviews about a user, newest first (cursor paging)",
  description: "Ordered by when each review was written. A reviewer whose account was deleted " +
    "shows with reviewerId and reviewerFirstName null. An unknown or deleted user is 404.",
  request: { params: IdParam, query: CursorQuery },
  responses: {
    200: cursorPage(ReviewAbout, "One page of reviews about the user"),
    ...problems(400, 401, 404, 429),
  },
});

const mineRoute = defineRoute({ scope: "reviews:read" }, {
  method: "get",
  path: "/reviews/me",
  tags: ["Reviews"],
  summary: "The reviews the caller wrote, hidden ones included, newest first (cursor paging)",
  request: { query: CursorQuery },
  responses: {
    200: cursorPage(Review, "One page of the caller's reviews"),
    ...problems(400, 401, 403, 429),
  },
});

export function registerReviews(api: OpenAPIHono<AppEnv>) {
  api.openapi(reviewRoute, async (c) => {
    const { kv, now, ratingCache } = c.get("deps");
    const input = c.req.valid("json");
    const at = now();
    const id = crypto.randomUUID();
    const stored = await createReview(kv, {
      id,
      taskId: c.req.valid("param").id,
      reviewerId: principalOf(c).userId,
      revieweeId: input.revieweeId,
      rating: input.rating,
      comment: input.comment || null,
      createdAt: new Date(at).toISOString(),
      orderKey: orderKey(at, id),
    }, at);
    // At once here; other instances see the change marker move.
    if (stored.visibleAt !== null) ratingCache.clear();
    return c.json(toReview(stored), 201);
  });

  api.openapi(aboutRoute, async (c) => {
    const { kv } = c.get("deps");
    const userId = c.req.valid("param").id;
    const { limit, cursor } = c.req.valid("query");
    const scope = { listing: "reviews_about", userId };
    const before = await cursorPosition(cursor, scope);
    const [user, page] = await Promise.all([
      getUser(kv, userId),
      listReviewsAbout(kv, { userId, limit, before: before ?? undefined }),
    ]);
    if (!user) throw notFound("User");
    setNextPage(c, page.next ? await encodeCursor(page.next, scope) : null);
    return c.json(page.items.map(({ review, reviewer }) => toReviewAbout(review, reviewer)), 200);
  });

  api.openapi(mineRoute, async (c) => {
    const { kv } = c.get("deps");
    const userId = principalOf(c).userId;
    const { limit, cursor } = c.req.valid("query");
    const scope = { listing: "my_reviews", userId };
    const before = await cursorPosition(cursor, scope);
    const page = await listOwnReviews(kv, { userId, limit, before: before ?? undefined });
    setNextPage(c, page.next ? await encodeCursor(page.next, scope) : null);
    return c.json(page.items.map(toReview), 200);
  });
}
