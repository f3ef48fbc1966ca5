/**
 * Lists sent early: a plan made from the instance's memory names the streams it would read
 * first, and they are listed beside the fresh plan's reads; the fresh plan takes those it asks for.
 */
import type { PrefixStream } from "../scan/stream.ts";

/** Streams listed early, by prefix, each with its first fill in flight. */
export type EarlyLists = Map<string, { stream: PrefixStream; filled: Promise<void> }>;

/** Starts the first fill of each stream of a guessed plan. */
export function sendEarly(streams: PrefixStream[]): EarlyLists {
  const early: EarlyLists = new Map();
  for (const stream of streams) {
    // An older epoch's stream is read only if the page gets down to it.
    if (stream.lazy) continue;
    const filled = stream.fill();
    // A list the fresh plan does not take is never waited for, nor is its failure.
    filled.catch(() => {});
    early.set(stream.id, { stream, filled });
  }
  return early;
}

/**
 * The fresh plan's streams, each unread one replaced by the early stream of the same prefix
 * (below the same order key, since both serve one query) once its fill answers. Whatever the
 * guess read, the stream is exact: a stream the guess missed is listed when the scan needs it,
 * a shallow early list refills like any other, and a list the fresh plan does not name is left.
 */
export async function adoptEarly(
  streams: PrefixStream[],
  early: EarlyLists,
): Promise<PrefixStream[]> {
  return await Promise.all(streams.map(async (stream) => {
    const found = stream.unread ? early.get(stream.id) : undefined;
    if (!found) return stream;
    await found.filled;
    found.stream.expect(stream.batch);
    return found.stream;
  }));
}
