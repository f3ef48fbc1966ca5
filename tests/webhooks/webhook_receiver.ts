/**
 * A real HTTP receiver on a free port that verifies every delivery with the reference
 * `standardwebhooks` package, as an integrator's endpoint would.
 */
import { Webhook } from "standardwebhooks";

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The secrets (of those the test gave) that verify this delivery. */
  verifiedWith: string[];
  // deno-lint-ignore no-explicit-any
  event: any;
}

export interface Receiver extends AsyncDisposable {
  url: string;
  received: Received[];
  /** Secrets to verify with; a delivery verified by none of them is still recorded. */
  secrets: string[];
  /** How the next request is answered (default 200). */
  answer: (request: Request, index: number) => Response | Promise<Response>;
  /** Waits until `predicate` holds of what arrived, or fails after `timeoutMs`. */
  waitFor(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<void>;
}

/** Starts a receiver on 127.0.0.1; with `tls` it speaks HTTPS with that certificate. */
export function startReceiver(tls?: { cert: string; key: string }): Receiver {
  let index = 0;
  const receiver: Receiver = {
    url: "",
    received: [],
    secrets: [],
    answer: () => new Response("ok"),
    async waitFor(predicate, timeoutMs = 60_000) {
      const started = Date.now();
      while (!predicate(receiver.received)) {
        if (Date.now() - started > timeoutMs) {
          throw new Error(
            `the receiver did not get what was expected in ${timeoutMs} ms; got ${
              JSON.stringify(receiver.received.map((r) => [r.id, r.event?.type]))
            }`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
  const options = { port: 0, hostname: "127.0.0.1", onListen() {}, ...tls };
  const server = Deno.serve(options, async (request) => {
    const body = await request.text();
    const headers = {
      "webhook-id": request.headers.get("webhook-id") ?? "",
      "webhook-timestamp": request.headers.get("webhook-timestamp") ?? "",
      "webhook-signature": request.headers.get("webhook-signature") ?? "",
    };
    const verifiedWith = receiver.secrets.filter((secret) => {
      try {
        new Webhook(secret).verify(body, headers);
        return true;
      } catch {
        return false;
      }
    });
    let event = null;
    try {
      event = JSON.parse(body);
    } catch { /* recorded as it came */ }
    receiver.received.push({
      id: headers["webhook-id"],
      timestamp: headers["webhook-timestamp"],
      signature: headers["webhook-signature"],
      body,
      verifiedWith,
      event,
    });
    return await receiver.answer(request, index++);
  });
  receiver.url = `${tls ? "https" : "http"}://127.0.0.1:${server.addr.port}/hook`;
  return receiver;
}
