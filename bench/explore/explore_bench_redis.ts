/**
 * The explore benchmark's Redis phase: a redis-server of its own holding the same city points,
 * "newest 20 within R km" and "nearest 20" answered by GEOSEARCH.
 */
import type { ExploreFilterQuery } from "../../domain/explore.ts";
import { PAGE, timed, WARMUP_REPEATS } from "./explore_bench_page.ts";
import { type RedisPhase, type RedisResult, timing } from "./explore_bench_report.ts";
import { generateTask } from "../datasets/explore_data.ts";
import { queryKinds } from "../datasets/explore_data_queries.ts";
import { Redis } from "./resp.ts";

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** The GEOSEARCH arguments of a query's circle. */
function circleOf(q: ExploreFilterQuery): (string | number)[] {
  return ["FROMLONLAT", q.longitude!, q.latitude!, "BYRADIUS", q.radiusKm!, "km"];
}

export async function redisPhase(n: number, count: number): Promise<RedisPhase> {
  const port = freePort();
  const server = new Deno.Command("redis-server", {
    args: ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    let redis: Redis | null = null;
    for (let attempt = 0; attempt < 100 && !redis; attempt++) {
      redis = await Redis.connect(port).catch(() => null);
      if (!redis) await new Promise((r) => setTimeout(r, 50));
    }
    if (!redis) throw new Error("redis-server did not start");
    // City-type points, member = order key, so members sort by creation time (newest last).
    const started = performance.now();
    let points = 0;
    let batch: (string | number)[] = ["GEOADD", "tasks"];
    const pending: (string | number)[][] = [];
    for (let i = 0; i < n; i++) {
      const t = generateTask(i, n);
      if (t.location.type !== "city") continue;
      const [lon, lat] = t.location.coordinates;
      if (Math.abs(lat) > 85.05) continue;
      batch.push(lon, lat, t.orderKey);
      points++;
      if (batch.length >= 2 + 3 * 1000) {
        pending.push(batch);
        batch = ["GEOADD", "tasks"];
        if (pending.length === 20) await redis.pipeline(pending.splice(0));
      }
    }
    if (batch.length > 2) pending.push(batch);
    await redis.pipeline(pending);
    const loadSeconds = (performance.now() - started) / 1000;
    const info = String(await redis.command("INFO", "memory"));
    const usedMemoryBytes = Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
    const kinds: RedisResult[] = [];
    for (
      const kind of queryKinds(count).filter((k) =>
        k.name.startsWith("geo") && !k.name.includes("search")
      )
    ) {
      const within: number[] = [];
      const nearest: number[] = [];
      for (let k = -WARMUP_REPEATS; k < kind.queries.length; k++) {
        const q = kind.queries[Math.max(0, k)];
        const [, t1] = await timed(async () => {
          const reply = await redis.command("GEOSEARCH", "tasks", ...circleOf(q)) as string[];
          // GEOSEARCH orders by distance only: the newest 20 need every member, sorted here.
          return reply.sort().slice(-PAGE).reverse();
        });
        const [, t2] = await timed(() =>
          redis.command("GEOSEARCH", "tasks", ...circleOf(q), "ASC", "COUNT", PAGE)
        );
        if (k < 0) continue;
        within.push(t1);
        nearest.push(t2);
      }
      kinds.push({ name: kind.name, within: timing(within), nearest: timing(nearest), members: 0 });
    }
    // Members inside each circle, counted once per kind outside the timed loop.
    for (const r of kinds) {
      const kind = queryKinds(count).find((k) => k.name === r.name)!;
      let total = 0;
      for (const q of kind.queries.slice(0, 20)) {
        total += Number(
          await redis.command("GEOSEARCHSTORE", "tmp", "tasks", ...circleOf(q)),
        );
      }
      r.members = total / Math.min(20, kind.queries.length);
    }
    redis.close();
    return { points, loadSeconds, usedMemoryBytes, kinds };
  } finally {
    server.kill("SIGTERM");
    await server.status;
  }
}
