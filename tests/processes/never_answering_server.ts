/**
 * A TCP server that accepts every connection and never answers, as a hostile or broken webhook
 * endpoint would: each attempt to it holds its sender until the webhook timeout.
 */
export interface NeverAnswering extends AsyncDisposable {
  url: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Of those, how many the sender has closed (an attempt that gave up). */
  readonly closed: number;
}

/** Starts one on 127.0.0.1. */
export function startNeverAnswering(): NeverAnswering {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  let accepted = 0;
  let closed = 0;
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        accepted++;
        conns.push(conn);
        // Reads what comes (the request) and answers nothing; the end is the sender closing.
        void (async () => {
          const buffer = new Uint8Array(4096);
          try {
            while (await conn.read(buffer) !== null) { /* never answered */ }
          } catch { /* closed by us at the end */ }
          closed++;
        })();
      }
    } catch { /* the listener closed */ }
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/hook`,
    get accepted() {
      return accepted;
    },
    get closed() {
      return closed;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch { /* closed already */ }
      }
      await accepting;
    },
  };
}
