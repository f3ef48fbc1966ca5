/**
 * Public answers that shared caches (Deno Deploy's CDN, a proxy) may keep for a few seconds:
 * anonymous explore pages and published task reads, with an ETag answered 304. An answer to a
 * request with a credential is the caller's own and stays `no-store` (routes/http/middleware.ts).
 * What the staleness means for clients: docs/caching.md.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createHash } from "node:crypto";
import type { AppEnv } from "../router/env.ts";
import { noneMatchHits } from "./list_headers.ts";
import { documentedHeaders } from "../router/served_route.ts";
import { answerHeader } from "./middleware.ts";

/**
 * The request headers a shared answer varies on besides the URL: a cache must not hand the
 * anonymous answer to a request that presents a credential (it gets its own, uncached).
 */
const CREDENTIAL_HEADERS = "Authorization, X-API-Key";

export const JSON_UTF8 = "application/json; charset=utf-8";

/** The conditional request header, for the routes' OpenAPI declarations. */
export const ConditionalHeaders = documentedHeaders(z.object({
  "if-none-match": z.string().optional().openapi({
    description: "An ETag of an earlier answer: 304 without a body while it is still current " +
      "(anonymous requests)",
  }),
}));

/** Headers of an answer that shared caches may keep, for the OpenAPI declarations. */
export const SharedCacheHeaders = z.object({
  "Cache-Control": z.string().openapi({
    description: "Anonymous: `public, max-age=0, s-maxage=<PUBLIC_CACHE_SECONDS>` (shared " +
      "caches may serve it that long; `no-cache` when the setting is 0). With a credential: " +
      "`no-store`",
  }),
  ETag: z.string().optional().openapi({
    description: "Anonymous requests: the answer's entity tag, for If-None-Match",
  }),
  Vary: z.string().openapi({ description: "Includes Authorization and X-API-Key" }),
});

/** The 304 of a conditional anonymous request, for the OpenAPI declarations. */
export const notModified = {
  304: {
    description: "Not modified: If-None-Match named the current ETag (anonymous requests)",
    headers: SharedCacheHeaders,
  },
};

/** What `sharedAnswer` sends. */
export interface SharedBody {
  /** Already serialized. */
  body: string;
  contentType: string;
  /** The page's X-Next-Cursor, which a cached copy replays with it; none for a single resource. */
  nextCursor?: string | null;
}

/**
 * Answers `body` as a 200. To an anonymous request it goes out with the shared-cache headers and
 * an ETag over what a cached copy replays (the body and the next-page cursor), or as a bodiless
 * 304 when If-None-Match names that ETag.
 */
export function sharedAnswer(
  c: Context<AppEnv>,
  { body, contentType, nextCursor }: SharedBody,
): Response {
  // On the answer as it leaves: set before it is built, Hono copies them into it one by one.
  answerHeader(c, "Vary", CREDENTIAL_HEADERS);
  if (c.get("principal") !== null) return c.body(body, 200, { "Content-Type": contentType });
  const seconds = c.get("deps").settings.PUBLIC_CACHE_SECONDS;
  // node:crypto's digest runs in the call; WebCrypto's is a trip to another thread and back,
  // which costs more CPU than the digest itself on a page-sized body.
  // The cursor comes from the caller: reading `c.res` before the answer is set would build a
  // placeholder response that Hono then merges into the real one, rebuilding it around a stream.
  const tag = createHash("sha256").update(nextCursor ?? "").update("\n").update(body)
    .digest("hex");
  const etag = `"${tag.slice(0, 32)}"`;
  answerHeader(c, "ETag", etag);
  answerHeader(
    c,
    "Cache-Control",
    seconds > 0 ? `public, max-age=0, s-maxage=${seconds}` : "no-cache",
  );
  if (noneMatchHits(c.req.header("If-None-Match"), etag)) return c.body(null, 304);
  return c.body(body, 200, { "Content-Type": contentType });
}
