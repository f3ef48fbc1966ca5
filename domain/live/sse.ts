/**
 * Server-sent event framing (the WHATWG HTML "server-sent events" format): an event as `id`,
 * `event` and `data` lines, comments, and the reconnection delay. Each frame ends with a blank line.
 */

const encoder = new TextEncoder();

/**
 * One event's frame. `data` is one JSON text, so it holds no raw line break; any other line
 * break a caller passes is split into `data` lines, as the format requires.
 */
export function eventFrame(event: { id: string; type: string; data: string }): Uint8Array {
  const data = event.data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`).join("");
  return encoder.encode(`id: ${event.id}\nevent: ${event.type}\n${data}\n`);
}

/** A comment line: ignored by clients, it keeps the connection and any proxy awake. */
export function commentFrame(text: string): Uint8Array {
  return encoder.encode(`: ${text.replace(/[\r\n]+/g, " ")}\n\n`);
}

/** The reconnection delay the client should use, in milliseconds. */
export function retryFrame(ms: number): Uint8Array {
  return encoder.encode(`retry: ${Math.round(ms)}\n\n`);
}
