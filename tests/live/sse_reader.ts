/**
 * A fetch-based reader of a server-sent event stream, for checks EventSource cannot make: the
 * exact events one connection received, its comments, and how it ended. It parses the format as
 * the WHATWG HTML standard says (fields, comments, blank-line dispatch).
 */

export interface SseEvent {
  id: string;
  event: string;
  data: string;
}

export interface SseConnection {
  status: number;
  headers: Headers;
  /** Events received so far, in order. */
  events: SseEvent[];
  comments: number;
  /** Settles when the server ends the stream (or it breaks): true for a clean end. */
  ended: Promise<boolean>;
  /** Resolves once `n` events have been received (rejects if the stream ends first). */
  received(n: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** The problem body of a refused stream. */
  problem: { code?: string } | null;
  close(): void;
}

/** How a connection is made: `fetch`, or a test's in-process `app.request`. */
export type Fetcher = (url: string, init: RequestInit) => Promise<Response>;

/** Opens `url` with `headers` and reads it in the background (unless `paused`). */
export async function openSse(
  url: string,
  headers: Record<string, string> = {},
  options: { fetcher?: Fetcher } = {},
): Promise<SseConnection> {
  const abort = new AbortController();
  const res = await (options.fetcher ?? fetch)(url, { headers, signal: abort.signal });
  const events: SseEvent[] = [];
  const waiters: { n: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  let comments = 0;
  let finished = false;
  const wake = () => {
    for (const w of [...waiters]) {
      if (events.length >= w.n) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      } else if (finished) {
        waiters.splice(waiters.indexOf(w), 1);
        w.reject(new Error(`the stream ended after ${events.length} of ${w.n} events`));
      }
    }
  };
  let problem = null;
  let ended: Promise<boolean>;
  if (res.status !== 200 || !res.body) {
    problem = await res.json().catch(() => null);
    ended = Promise.resolve(true);
    finished = true;
  } else {
    ended = (async () => {
      let buffer = "";
      let current: Partial<SseEvent> & { data?: string } = {};
      try {
        for await (const text of res.body!.pipeThrough(new TextDecoderStream())) {
          buffer += text;
          let at;
          while ((at = buffer.search(/\r\n|\r|\n/)) >= 0) {
            const line = buffer.slice(0, at);
            buffer = buffer.slice(at + (buffer.startsWith("\r\n", at) ? 2 : 1));
            if (line === "") {
              if (current.data !== undefined) {
                events.push({
                  id: current.id ?? "",
                  event: current.event ?? "message",
                  data: current.data,
                });
                wake();
              }
              current = {};
            } else if (line.startsWith(":")) {
              comments++;
            } else {
              const colon = line.indexOf(":");
              const field = colon < 0 ? line : line.slice(0, colon);
              let value = colon < 0 ? "" : line.slice(colon + 1);
              if (value.startsWith(" ")) value = value.slice(1);
              if (field === "data") {
                current.data = current.data === undefined ? value : `${current.data}\n${value}`;
              } else if (field === "id" || field === "event") current[field] = value;
            }
          }
        }
        return true;
      } catch {
        return false;
      } finally {
        finished = true;
        wake();
      }
    })();
  }
  return {
    status: res.status,
    headers: res.headers,
    events,
    get comments() {
      return comments;
    },
    ended,
    problem,
    received(n, timeoutMs = 30_000) {
      if (events.length >= n) return Promise.resolve(events);
      if (finished) {
        return Promise.reject(new Error(`the stream ended after ${events.length} of ${n} events`));
      }
      return new Promise<SseEvent[]>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${events.length} of ${n} events within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => (clearTimeout(timer), resolve(events)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        });
      });
    },
    close() {
      abort.abort();
    },
  } as SseConnection;
}
