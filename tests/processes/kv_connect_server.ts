/**
 * A KV Connect server for tests: the HTTP endpoints of denokv's `denokv serve` (metadata exchange,
 * snapshot_read, atomic_write, watch) in front of denokv's own SQLite backend and limit checks, as
 * its npm package ships them compiled (no denokv binary can be fetched onto these machines).
 * `deno run --allow-all tests/processes/kv_connect_server.ts <file> <token> [port]` serves one by hand.
 */
import { createRequire } from "node:module";

interface DenoKvNapi {
  open(path: string, inMemory: boolean | undefined, debug: boolean): number;
  close(db: number, debug: boolean): void;
  snapshotRead(db: number, request: Uint8Array, debug: boolean): Promise<Uint8Array<ArrayBuffer>>;
  atomicWrite(db: number, request: Uint8Array, debug: boolean): Promise<Uint8Array<ArrayBuffer>>;
  startWatch(db: number, request: Uint8Array, debug: boolean): Promise<number>;
  dequeueNextWatchMessage(db: number, watch: number, debug: boolean): Promise<Uint8Array | null>;
  endWatch(db: number, watch: number, debug: boolean): void;
}

const napi = createRequire(import.meta.url)("@deno/kv-linux-x64-gnu") as DenoKvNapi;

/** denokv's nil database id: the one database a server holds. */
const DATABASE_ID = "00000000-0000-0000-0000-000000000000";

export interface KvConnectServer extends AsyncDisposable {
  /** The URL to give `Deno.openKv` (and KV_PATH). */
  url: string;
  token: string;
  /** Data-path requests answered, by endpoint, and those refused (denokv's 4xx and 5xx). */
  counts: Record<string, number>;
  close(): Promise<void>;
}

/** Serves the SQLite file at `path` by KV Connect on 127.0.0.1, guarded by `token`. */
export function startKvConnectServer(
  options: { path: string; token?: string; port?: number },
): KvConnectServer {
  const token = options.token ?? crypto.randomUUID();
  const db = napi.open(options.path, false, false);
  const counts: Record<string, number> = {};
  const watches = new Set<number>();
  const authorized = (request: Request) =>
    request.headers.get("authorization") === `Bearer ${token}`;

  const dataPath = async (name: string, request: Request): Promise<Response> => {
    if (!authorized(request)) return new Response("Invalid access token.", { status: 401 });
    if (request.headers.get("x-denokv-database-id") !== DATABASE_ID) {
      return new Response("Invalid database id.", { status: 400 });
    }
    const body = new Uint8Array(await request.arrayBuffer());
    counts[name] = (counts[name] ?? 0) + 1;
    try {
      if (name === "watch") return watch(body);
      const output = name === "snapshot_read"
        ? await napi.snapshotRead(db, body, false)
        : await napi.atomicWrite(db, body, false);
      return new Response(output, { headers: { "content-type": "application/x-protobuf" } });
    } catch (error) {
      // denokv answers its limit and conversion errors with 400 and its words.
      counts.refused = (counts.refused ?? 0) + 1;
      return new Response((error as Error).message, { status: 400 });
    }
  };

  const watch = async (body: Uint8Array): Promise<Response> => {
    const id = await napi.startWatch(db, body, false);
    watches.add(id);
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await napi.dequeueNextWatchMessage(db, id, false).catch(() => null);
        if (!next) {
          watches.delete(id);
          controller.close();
          return;
        }
        const frame = new Uint8Array(4 + next.byteLength);
        new DataView(frame.buffer).setUint32(0, next.byteLength, true);
        frame.set(next, 4);
        controller.enqueue(frame);
      },
      cancel() {
        watches.delete(id);
        napi.endWatch(db, id, false);
      },
    });
    return new Response(stream, { headers: { "content-type": "application/octet-stream" } });
  };

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: options.port ?? 0, onListen: () => {} },
    async (request) => {
      const path = new URL(request.url).pathname;
      if (request.method !== "POST") return new Response("Resource not found.", { status: 404 });
      if (path === "/") {
        const { supportedVersions = [] } = await request.json().catch(() => ({}));
        if (!authorized(request)) return new Response("Invalid access token.", { status: 401 });
        const version = supportedVersions.includes(3) ? 3 : supportedVersions.includes(2) ? 2 : 0;
        if (!version) return new Response("No matching protocol version.", { status: 400 });
        return Response.json({
          version,
          databaseId: DATABASE_ID,
          endpoints: [{ url: "/v2", consistency: "strong" }],
          token,
          expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
        });
      }
      const endpoint = /^\/v2\/(snapshot_read|atomic_write|watch)$/.exec(path)?.[1];
      if (!endpoint) return new Response("Resource not found.", { status: 404 });
      return dataPath(endpoint, request);
    },
  );
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const id of watches) napi.endWatch(db, id, false);
    watches.clear();
    await server.shutdown();
    napi.close(db, false);
  };
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    token,
    counts,
    close,
    [Symbol.asyncDispose]: close,
  };
}

if (import.meta.main) {
  const [path, token, port] = Deno.args;
  const server = startKvConnectServer({ path, token, port: port ? Number(port) : undefined });
  console.log(server.url);
}
