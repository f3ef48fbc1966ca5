/**
 * Opaque cursors for newest-first listings: a position in an index plus a fingerprint of the
 * query that made it, so a cursor replayed with other filters is refused as INVALID_CURSOR.
 */
import { decodeBase64Url, encodeBase64Url, encodeTextBase64Url } from "../domain/base64.ts";
import { AppError } from "../domain/errors.ts";

/** What a cursor is bound to: the listing's name, its owner and its filters (limit excluded). */
export type CursorScope = Record<string, string | number | boolean | null | undefined>;

const MAX_CURSOR_LENGTH = 512;

function invalidCursor(): AppError {
  return new AppError("INVALID_CURSOR", "The cursor is malformed or was made for another query");
}

// Recent fingerprints by canonical scope. A listing's scope repeats page after page, and
// WebCrypto's digest was a visible share of a GET /tasks page under load (bench:http); bounded, so
// many distinct filters only cost a refill.
const FINGERPRINTS_KEPT = 1000;
const fingerprints = new Map<string, string>();

/** Key order and absent members do not change the fingerprint; values do. */
async function fingerprint(scope: CursorScope): Promise<string> {
  const canonical = JSON.stringify(
    Object.keys(scope).filter((k) => scope[k] !== undefined).sort().map((k) => [k, scope[k]]),
  );
  const known = fingerprints.get(canonical);
  if (known !== undefined) return known;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical));
  const made = encodeBase64Url(new Uint8Array(digest).slice(0, 12));
  if (fingerprints.size >= FINGERPRINTS_KEPT) fingerprints.clear();
  fingerprints.set(canonical, made);
  return made;
}

/** Encodes a position (e.g. the last item's ordering key) for the query described by `scope`. */
export async function encodeCursor(position: string, scope: CursorScope): Promise<string> {
  return encodeTextBase64Url(JSON.stringify({ p: position, f: await fingerprint(scope) }));
}

/**
 * Reads a cursor back to its position; throws INVALID_CURSOR when it is malformed, was made for
 * another scope, or its position fails `isPosition`.
 */
export async function decodeCursor(
  cursor: string,
  scope: CursorScope,
  isPosition: (position: string) => boolean = () => true,
): Promise<string> {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) throw invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(decodeBase64Url(cursor)));
  } catch {
    throw invalidCursor();
  }
  if (
    typeof parsed !== "object" || parsed === null ||
    typeof (parsed as { p?: unknown }).p !== "string" ||
    typeof (parsed as { f?: unknown }).f !== "string"
  ) throw invalidCursor();
  const { p, f } = parsed as { p: string; f: string };
  if (f !== await fingerprint(scope) || !isPosition(p)) throw invalidCursor();
  return p;
}

/**
 * The position of a request's `cursor` member: absent or empty (`cursor=`) is the first page
 * (null), anything else must be a cursor made for `scope` holding an order key.
 */
export async function cursorPosition(
  cursor: string | undefined,
  scope: CursorScope,
): Promise<string | null> {
  return cursor ? await decodeCursor(cursor, scope, isUlid) : null;
}

/** A ULID, as used for the ordering keys of every `<entity>_by_time`-style index. */
export function isUlid(position: string): boolean {
  return /^[0-9A-HJKMNP-TV-Z]{26}$/.test(position);
}

/** One page of an index read newest first, and the ordering key to continue after, if any. */
export interface IndexPage<T> {
  entries: Deno.KvEntry<T>[];
  /** The last key part of the page's last entry when more entries follow, else null. */
  next: string | null;
}

/**
 * Reads up to `limit` entries of `prefix` whose last key part sorts before `before` (all when
 * absent), newest first. Keys are positions, so items created or deleted meanwhile never make
 * a later page repeat or skip one that was there throughout.
 */
export async function readNewestFirst<T>(
  kv: Deno.Kv,
  page: { prefix: Deno.KvKey; limit: number; before?: string },
): Promise<IndexPage<T>> {
  const { prefix, limit, before } = page;
  const selector = before ? { prefix, end: [...prefix, before] } : { prefix };
  const entries: Deno.KvEntry<T>[] = [];
  for await (const entry of kv.list<T>(selector, { reverse: true, limit: limit + 1 })) {
    entries.push(entry);
  }
  const more = entries.length > limit;
  if (more) entries.length = limit;
  const last = entries.at(-1);
  return { entries, next: more && last ? String(last.key.at(-1)) : null };
}
