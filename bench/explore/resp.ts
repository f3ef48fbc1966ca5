/**
 * The smallest Redis client the explore benchmark needs: RESP2 commands over one TCP
 * connection, pipelined, replies parsed into strings, numbers, arrays and errors.
 */

export type Reply = string | number | null | Reply[] | Error;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function encode(args: (string | number)[]): Uint8Array {
  let s = `*${args.length}\r\n`;
  for (const a of args) {
    const text = String(a);
    s += `$${encoder.encode(text).length}\r\n${text}\r\n`;
  }
  return encoder.encode(s);
}

export class Redis {
  #buf = new Uint8Array(0);
  #pos = 0;

  private constructor(private readonly conn: Deno.TcpConn) {}

  static async connect(port: number): Promise<Redis> {
    return new Redis(await Deno.connect({ hostname: "127.0.0.1", port }));
  }

  /** Sends every command, then reads their replies in order. */
  async pipeline(commands: (string | number)[][]): Promise<Reply[]> {
    const parts = commands.map(encode);
    const total = parts.reduce((n, p) => n + p.length, 0);
    const out = new Uint8Array(total);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    for (let written = 0; written < out.length;) {
      written += await this.conn.write(out.subarray(written));
    }
    const replies: Reply[] = [];
    for (let i = 0; i < commands.length; i++) replies.push(await this.#reply());
    return replies;
  }

  async command(...args: (string | number)[]): Promise<Reply> {
    const [reply] = await this.pipeline([args]);
    if (reply instanceof Error) throw reply;
    return reply;
  }

  close(): void {
    this.conn.close();
  }

  async #fill(): Promise<void> {
    const chunk = new Uint8Array(1 << 16);
    const n = await this.conn.read(chunk);
    if (n === null) throw new Error("Redis closed the connection");
    const rest = this.#buf.subarray(this.#pos);
    const next = new Uint8Array(rest.length + n);
    next.set(rest);
    next.set(chunk.subarray(0, n), rest.length);
    this.#buf = next;
    this.#pos = 0;
  }

  async #line(): Promise<string> {
    while (true) {
      const end = this.#buf.indexOf(13, this.#pos);
      if (end >= 0 && end + 1 < this.#buf.length) {
        const line = decoder.decode(this.#buf.subarray(this.#pos, end));
        this.#pos = end + 2;
        return line;
      }
      await this.#fill();
    }
  }

  async #reply(): Promise<Reply> {
    const line = await this.#line();
    const body = line.slice(1);
    switch (line[0]) {
      case "+":
        return body;
      case "-":
        return new Error(body);
      case ":":
        return Number(body);
      case "$": {
        const len = Number(body);
        if (len < 0) return null;
        while (this.#buf.length - this.#pos < len + 2) await this.#fill();
        const text = decoder.decode(this.#buf.subarray(this.#pos, this.#pos + len));
        this.#pos += len + 2;
        return text;
      }
      case "*": {
        const len = Number(body);
        if (len < 0) return null;
        const items: Reply[] = [];
        for (let i = 0; i < len; i++) items.push(await this.#reply());
        return items;
      }
      default:
        throw new Error(`Unexpected Redis reply: ${line}`);
    }
  }
}
