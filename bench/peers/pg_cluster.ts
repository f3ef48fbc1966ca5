/**
 * A throwaway PostgreSQL cluster for explore's peer: initdb in a temporary folder, listening on a
 * Unix socket in that folder only (no TCP), PostGIS created in its database, removed on close.
 */
import postgres from "postgres";

const BIN_DIRS = ["/usr/lib/postgresql/15/bin", "/usr/local/bin", "/usr/bin"];
const EXTENSION_DIRS = [
  "/usr/share/postgresql/15/extension",
  "/usr/local/share/postgresql/extension",
];
const PORT = 5432;

/** A Postgres client of the `postgres` package. */
export type Sql = postgres.Sql;

/** Where initdb, pg_ctl and postgres are, or null without PostgreSQL. */
export async function postgresBin(): Promise<string | null> {
  for (const dir of BIN_DIRS) {
    if (await exists(`${dir}/initdb`) && await exists(`${dir}/pg_ctl`)) return dir;
  }
  return null;
}

/** True when PostGIS's extension files are installed beside PostgreSQL. */
export async function hasPostgis(): Promise<boolean> {
  for (const dir of EXTENSION_DIRS) if (await exists(`${dir}/postgis.control`)) return true;
  return false;
}

/** Why the peer cannot run here, or null when PostgreSQL and PostGIS are both installed. */
export async function missingPeer(): Promise<string | null> {
  if (await postgresBin() === null) return "PostgreSQL (initdb, pg_ctl) is not installed";
  if (!await hasPostgis()) {
    return "PostGIS is not installed (apt-get install -y postgresql-15-postgis-3)";
  }
  if (Deno.uid() === 0 && await serverUid() === null) {
    return "running as root, and there is no `postgres` user to run the server as";
  }
  return null;
}

/** The `postgres` user's id, or null without one. */
async function serverUid(): Promise<number | null> {
  const out = await new Deno.Command("id", {
    args: ["-u", "postgres"],
    stdout: "piped",
    stderr: "null",
  })
    .output().catch(() => null);
  return out?.success ? Number(new TextDecoder().decode(out.stdout).trim()) : null;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** A running cluster: its socket folder, a client factory, and its removal. */
export interface PgCluster {
  dir: string;
  /** A new client over the socket (`max` connections, 1 by default). */
  connect(max?: number): Sql;
  /** Stops the server and removes its folder. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Settings of the cluster: durability off (a throwaway copy), and no parallel workers, so that a
 * query's CPU is its backend's own (and two shared cores leave nothing for them).
 */
const SETTINGS = [
  "listen_addresses=''",
  `port=${PORT}`,
  "max_parallel_workers_per_gather=0",
  "work_mem=16MB",
  "maintenance_work_mem=256MB",
  "fsync=off",
  "synchronous_commit=off",
  "full_page_writes=off",
  "max_wal_size=4GB",
  "jit=off",
];

// initdb and postgres refuse to run as root: as root they run as the `postgres` user.
function asServerUser(bin: string, args: string[]): Deno.Command {
  const root = Deno.uid() === 0;
  return new Deno.Command(root ? "runuser" : bin, {
    args: root ? ["-u", "postgres", "--", bin, ...args] : args,
    stdout: "piped",
    stderr: "piped",
  });
}

async function run(bin: string, args: string[]): Promise<void> {
  const out = await asServerUser(bin, args).output();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
    throw new Error(`${bin} ${args.join(" ")} failed: ${text}`);
  }
}

/**
 * Starts a fresh cluster with PostGIS created in its `postgres` database; `sharedBuffers` as
 * PostgreSQL spells it (`256MB` unless given).
 */
export async function startCluster(
  { sharedBuffers = "256MB" }: { sharedBuffers?: string } = {},
): Promise<PgCluster> {
  const bin = await postgresBin();
  if (bin === null) throw new Error("PostgreSQL is not installed");
  const dir = await Deno.makeTempDir({ prefix: "explore-peer-" });
  if (Deno.uid() === 0) await Deno.chown(dir, await serverUid(), null);
  const data = `${dir}/data`;
  await run(`${bin}/initdb`, [
    "-D",
    data,
    "-U",
    "postgres",
    "--auth=trust",
    "--locale=C",
    "-E",
    "UTF8",
  ]);
  const options = [
    ...SETTINGS,
    `shared_buffers=${sharedBuffers}`,
    `unix_socket_directories='${dir}'`,
  ].map((s) => `-c ${s}`).join(" ");
  await run(`${bin}/pg_ctl`, ["-D", data, "-l", `${dir}/server.log`, "-o", options, "-w", "start"]);
  const clients: Sql[] = [];
  const connect = (max = 1) => {
    const sql = postgres({
      host: dir,
      port: PORT,
      user: "postgres",
      database: "postgres",
      max,
      onnotice: () => {},
    });
    clients.push(sql);
    return sql;
  };
  const setup = connect();
  await setup`create extension if not exists postgis`;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await Promise.all(clients.map((c) => c.end({ timeout: 1 })));
    await run(`${bin}/pg_ctl`, ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => {});
    await Deno.remove(dir, { recursive: true });
  };
  return { dir, connect, close, [Symbol.asyncDispose]: close };
}
