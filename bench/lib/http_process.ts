/**
 * The server processes bench/http/http.ts measures: started pinned with taskset, and read from
 * /proc (CPU time, memory), for one process or summed over the workers of `deno task start`.
 */

export interface Server {
  name: string;
  port: number;
  /** The process started: the server itself, or the supervisor of `workers` processes. */
  process: Deno.ChildProcess;
  /** 0 when `process` answers requests itself; else how many workers the supervisor runs. */
  workers: number;
  /** The CPUs the server may run on, as given to `taskset -c`. */
  cpus: string;
}

export async function run(command: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`${command} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

/** VmRSS and VmHWM of a process in MB, from /proc (Deno reads /proc only with -A, cat can). */
async function memoryMb(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await run("cat", [`/proc/${pid}/status`]);
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
  return { rss: field("VmRSS") / 1024, hwm: field("VmHWM") / 1024 };
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await run("cat", [`/proc/${pid}/stat`]);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks of 1/100 s on Linux.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The processes that answer the server's requests: the server itself, or the supervisor's
 * children (its workers; the supervisor only starts and stops them, it carries no request).
 */
export async function servingPids(server: Server): Promise<number[]> {
  if (server.workers === 0) return [server.process.pid];
  const out = await new Deno.Command("pgrep", {
    args: ["-P", String(server.process.pid)],
    stdout: "piped",
  }).output();
  // pgrep exits 1 when it finds none: an empty list, which the count below rejects.
  const pids = new TextDecoder().decode(out.stdout).split("\n").filter(Boolean).map(Number);
  if (pids.length !== server.workers) {
    throw new Error(`${server.name}: ${pids.length} workers running, not ${server.workers}`);
  }
  return pids.sort((a, b) => a - b);
}

const sum = (values: number[]) => values.reduce((total, n) => total + n, 0);

/** CPU seconds used so far by the serving processes together. */
export async function serverCpuSeconds(pids: number[]): Promise<number> {
  return sum(await Promise.all(pids.map(cpuSeconds)));
}

/** RSS and HWM summed over the serving processes, in MB. */
export async function serverMemoryMb(pids: number[]): Promise<{ rss: number; hwm: number }> {
  const all = await Promise.all(pids.map(memoryMb));
  return { rss: sum(all.map((m) => m.rss)), hwm: sum(all.map((m) => m.hwm)) };
}

/**
 * Sockets listening on `port`, from the kernel's TCP tables: with SO_REUSEPORT each worker has
 * its own, so this counts the workers that accept connections, which a /health answer does not.
 */
async function listeners(port: number): Promise<number> {
  const tables = await run("cat", ["/proc/net/tcp", "/proc/net/tcp6"]);
  const local = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  // Fields: sl, local address:port, remote address:port, state (0A is LISTEN).
  return tables.split("\n").filter((line) => {
    const fields = line.trim().split(/\s+/);
    return fields[1]?.endsWith(local) && fields[3] === "0A";
  }).length;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

export interface ServerStart {
  name: string;
  /** The arguments of `deno` (`run`, flags, script). */
  args: string[];
  env: Record<string, string>;
  /** `taskset -c` CPU list. */
  cpus: string;
  /** Workers of a supervisor (`deno task start`); 0 or absent for a process that serves. */
  workers?: number;
  cwd: string;
}

/** Starts a server process on its CPUs and waits until it answers HTTP with every worker up. */
export async function startServer(start: ServerStart): Promise<Server> {
  const port = freePort();
  const process = new Deno.Command("taskset", {
    args: ["-c", start.cpus, Deno.execPath(), ...start.args],
    cwd: start.cwd,
    env: { ...start.env, PORT: String(port) },
    stdin: "null",
    // The access log goes to /dev/null: written (the service pays for it) but not kept.
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const server = { name: start.name, port, process, workers: start.workers ?? 0, cpus: start.cpus };
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await (await fetch(`http://127.0.0.1:${port}/health`)).body?.cancel();
      await servingPids(server);
      const listening = await listeners(port);
      if (listening === Math.max(1, server.workers)) return server;
      throw new Error(`${listening} sockets listening`);
    } catch (error) {
      if (Date.now() > deadline) {
        throw new Error(`${start.name} did not start on port ${port}: ${error}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
