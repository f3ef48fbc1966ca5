/**
 * Cursor paging over HTTP (docs/contract.md section 5): the `limit`/`cursor` query members, and the
 * `X-Next-Cursor` and `Link: <...>; rel="next"` headers that announce the next page.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { wholeNumberParam } from "../../domain/validation/query_number.ts";
import { linkTarget } from "./public_url.ts";

/** `limit` (1 to 50, default 20) and an opaque `cursor`; extend it with a listing's filters. */
export const CursorQuery = z.strictObject({
  limit: wholeNumberParam(1, 50).default(20).openapi({
    param: { name: "limit", in: "query" },
    description: "Items per page, 1 to 50",
    default: 20,
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
    description: 'URL of the next page, as `<url>; rel="next"`; absent on the last page. ' +
      "Absolute when the service knows its public address, else path-absolute",
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
  c.header("X-Next-Cursor", cursor);
  c.header("Link", `<${linkTarget(c, (query) => query.set("cursor", cursor))}>; rel="next"`);
}

/** `page` (from 1, default 1) and `limit` (1 to 50, default 20), for page paging. */
export const PageQuery = z.strictObject({
  page: wholeNumberParam(1, 1_000_000).default(1).openapi({
    param: { name: "page", in: "query" },
    description: "Page number, from 1",
    default: 1,
    example: 1,
  }),
  limit: CursorQuery.shape.limit,
});

/** The response headers of a page-paged listing, for its OpenAPI declaration. */
export const PageHeaders = z.object({
  "X-Total-Count": z.string().openapi({ description: "Items in the whole listing" }),
  Link: z.string().optional().openapi({
    description: 'rel="next" and rel="prev" URLs, where those pages exist',
  }),
});

/**
 * Headers of page paging: the total, and Link rel="next" / rel="prev" where those pages hold
 * items (prev from a page past the end points at the last page).
 */
export function setPageLinks(
  c: Context,
  paged: { page: number; limit: number; total: number },
): void {
  const { page, limit, total } = paged;
  c.header("X-Total-Count", String(total));
  const lastPage = Math.max(1, Math.ceil(total / limit));
  const links: string[] = [];
  const link = (to: number, rel: string) => {
    const target = linkTarget(c, (query) => {
      query.set("page", String(to));
      query.set("limit", String(limit));
    });
    links.push(`<${target}>; rel="${rel}"`);
  };
  if (page < lastPage) link(page + 1, "next");
  if (page > 1) link(Math.min(page - 1, lastPage), "prev");
  if (links.length > 0) c.header("Link", links.join(", "));
}
