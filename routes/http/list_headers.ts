/** Comma-separated request headers read safely, and If-None-Match matched against an ETag. */

// A real list header of this kind is a few hundred bytes; a longer one is ignored unread, so no
// client can make the server walk (or split) megabytes of it.
const MAX_LIST_HEADER = 4096;

/**
 * The members of a comma-separated header, trimmed; none when it is absent or oversized. Plain
 * string splits only: a pattern with a starred blank class around the comma backtracks
 * quadratically over a run of spaces.
 */
export function listMembers(header: string | undefined): string[] {
  if (!header || header.length > MAX_LIST_HEADER) return [];
  return header.split(",").map((member) => member.trim());
}

const opaque = (tag: string) => tag.startsWith("W/") ? tag.slice(2) : tag;

/**
 * True when If-None-Match names `etag` or is `*`: the weak comparison RFC 9110 (13.1.2) asks of
 * it, so a tag a compressing server or proxy weakened (`W/"…"`) still matches.
 */
export function noneMatchHits(header: string | undefined, etag: string): boolean {
  const wanted = opaque(etag);
  return listMembers(header).some((member) => member === "*" || opaque(member) === wanted);
}
