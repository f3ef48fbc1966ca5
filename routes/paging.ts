/**
 * Cursor paging over HTTP (API.md section 5): the `limit`/`cursor` query members, and the
 * `X-Next-Cursor` and `Link: <...>; rel="next"` headers that announce the next page.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";

/** `limit` (1 to 50, default 20) and an opaque `cursor`; extend it with a listing's filters. */
export const CursorQuery = z.object({
  limit: z.coerce.number().int().min(1).max(50).default(20).openapi({
    param: { name: "limit", in: "query" },
    description: "Items per page, 1 to 50",
    example: 20,
  }),
  cursor: z.string().optional().openapi({
    param: { name: "cursor", in: "query" },
    description: "The X-Next-Cursor of the previous page, sent with the same filters",
  }),
});

/** The response headers of a cursor-paged listing, for its OpenAPI declaration. */
export const CursorPageHeaders = z.object({
  "X-Next-Cursor": z.string().optional().openapi({
    description: "Cursor of the next page; absent on the last page",
  }),
  Link: z.string().optional().openapi({
    description: 'Absolute URL of the next page, as `<url>; rel="next"`; absent on the last page',
  }),
});

/** A cursor-paged JSON array response: the items, with the next-page headers. */
export function cursorPage<T extends z.ZodType>(item: T, description: string) {
  return {
    description,
    headers: CursorPageHeaders,
    content: { "application/json": { schema: z.array(item) } },
  };
}

/** Announces the next page (X-Next-Cursor and Link rel="next"), or nothing on the last one. */
export function setNextPage(c: Context, cursor: string | null) {
  if (!cursor) return;
  const url = new URL(c.req.url);
  url.searchParams.set("cursor", cursor);
  c.header("X-Next-Cursor", cursor);
  c.header("Link", `<${url.href}>; rel="next"`);
}
