/**
 * A JSON array streamed from items read lazily, for listings too long to hold in memory, answered
 * with the type a route declared for the whole array.
 */
import type { TypedResponse } from "hono";
import { streamedResponse } from "./middleware.ts";

/** Streams a JSON array from items read lazily, so memory stays flat however many there are. */
function jsonArrayStream<T>(
  items: AsyncGenerator<T>,
  onError: (error: unknown) => void,
  itemsPerChunk = 100,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let started = false;
  let first: Promise<IteratorResult<T>> | null = null;
  return new ReadableStream<Uint8Array>({
    start() {
      // The first read begins with the response, not at the client's first pull: a request
      // acting for an API key confirms the key beside it, before the answer leaves.
      first = items.next();
      first.catch(() => {}); // answered in pull
    },
    async pull(controller) {
      try {
        const parts: string[] = [];
        let done = false;
        while (parts.length < itemsPerChunk) {
          const next = await (first ?? items.next());
          first = null;
          if (next.done) {
            done = true;
            break;
          }
          parts.push(JSON.stringify(next.value));
        }
        let text = parts.join(",");
        if (!started) text = "[" + text;
        else if (parts.length > 0) text = "," + text;
        started = true;
        if (done) text += "]";
        controller.enqueue(encoder.encode(text));
        if (done) controller.close();
      } catch (error) {
        onError(error);
        controller.error(error);
      }
    },
    async cancel() {
      await items.return(undefined);
    },
  });
}

/**
 * A 200 answer whose body is the array of `items`, streamed; for a HEAD the items are never read.
 * Typed as the JSON answer the route declares: Hono's typed helpers take a parsed body, not a
 * stream of its text.
 */
export function streamJsonArray<T>(
  method: string,
  items: () => AsyncGenerator<T>,
  onError: (error: unknown) => void,
): Response & TypedResponse<T[], 200, "json"> {
  const response = streamedResponse(method, () => jsonArrayStream(items(), onError), {
    status: 200,
    headers: { "Content-Type": "application/json; charset=utf-8" },
  });
  return response as Response & TypedResponse<T[], 200, "json">;
}
