/**
 * Posts one webhook over HTTP/1.1 to an address that was checked, not to whatever the name
 * resolves to a moment later: the connection goes to the checked address and TLS verifies the
 * certificate against the URL's host, so DNS rebinding cannot redirect it. Only the status line
 * and headers are read (at most a few KB), redirects are never followed, and the whole exchange
 * is bounded by a timeout.
 */
import { answered, type NoAnswer, noAnswer, type Outcome } from "../../domain/webhooks/delivery.ts";
import type { Target } from "../../domain/webhooks/webhook_target.ts";

/** What is read of an answer at most: the status line and headers fit, a body is not wanted. */
export const MAX_RESPONSE_BYTES = 4096;

/** The outcome of one attempt: a status code, or the category of why there was none. */
export type PostResult = Outcome & { durationMs: number };

/** A failure of a known kind; any other error of the exchange counts as a failed connection. */
class Failure extends Error {
  constructor(readonly category: NoAnswer) {
    super(category);
  }
}

export interface PostRequest {
  target: Target;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Extra trusted root certificates (PEM); the system's roots are trusted anyway. */
  caCerts?: string[];
}

function requestBytes(url: URL, headers: Record<string, string>, body: Uint8Array): Uint8Array {
  const lines = [
    `POST ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    "Content-Type: application/json",
    `Content-Length: ${body.length}`,
    "Connection: close",
    "User-Agent: task-marketplace-webhooks/1",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  const head = new TextEncoder().encode(`${lines.join("\r\n")}\r\n\r\n`);
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(head);
  bytes.set(body, head.length);
  return bytes;
}

/** Reads until the status line is complete, at most MAX_RESPONSE_BYTES; returns its code. */
async function readStatus(conn: Deno.Conn): Promise<number> {
  const buffer = new Uint8Array(MAX_RESPONSE_BYTES);
  let filled = 0;
  while (filled < buffer.length) {
    const read = await conn.read(buffer.subarray(filled));
    if (read === null) break;
    filled += read;
    const text = new TextDecoder().decode(buffer.subarray(0, filled));
    const end = text.indexOf("\r\n");
    if (end >= 0) {
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(text.slice(0, end));
      if (!match) throw new Failure("invalid_response");
      return Number(match[1]);
    }
  }
  throw new Failure("invalid_response");
}

async function connect(target: Target, caCerts?: string[]): Promise<Deno.Conn> {
  const port = Number(target.url.port) || (target.url.protocol === "https:" ? 443 : 80);
  let lastError = new Failure("connection_failed");
  for (const hostname of target.addresses) {
    let conn: Deno.TcpConn;
    try {
      conn = await Deno.connect({ hostname, port });
    } catch {
      continue;
    }
    if (target.url.protocol !== "https:") return conn;
    try {
      const tls = await Deno.startTls(conn, {
        hostname: target.url.hostname.replace(/^\[|\]$/g, ""),
        caCerts,
      });
      // Here, so that a refused certificate is told apart from a connection lost later.
      await tls.handshake();
      return tls;
    } catch {
      try {
        conn.close();
      } catch { /* closed by the failed handshake */ }
      lastError = new Failure("tls");
    }
  }
  throw lastError;
}

/** Sends the request; never throws: a failure is a result without a status code. */
export async function postWebhook(request: PostRequest): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const opened: Deno.Conn[] = [];
  let abandoned = false;
  const exchange = (async () => {
    const conn = await connect(request.target, request.caCerts);
    opened.push(conn);
    if (abandoned) throw new Failure("timeout");
    const body = new TextEncoder().encode(request.body);
    const bytes = requestBytes(request.target.url, request.headers, body);
    for (let written = 0; written < bytes.length;) {
      written += await conn.write(bytes.subarray(written));
    }
    return await readStatus(conn);
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Failure("timeout")), request.timeoutMs);
  });
  try {
    const statusCode = await Promise.race([exchange, timeout]);
    return { ...answered(statusCode), durationMs: elapsed() };
  } catch (error) {
    const category = error instanceof Failure ? error.category : "connection_failed";
    return { ...noAnswer(category), durationMs: elapsed() };
  } finally {
    abandoned = true;
    clearTimeout(timer);
    // A connection that opens after the timeout is closed as soon as it does.
    exchange.catch(() => {}).finally(() => closeAll(opened));
    closeAll(opened);
  }
}

function closeAll(conns: Deno.Conn[]) {
  for (const conn of conns.splice(0)) {
    try {
      conn.close();
    } catch { /* already closed */ }
  }
}
