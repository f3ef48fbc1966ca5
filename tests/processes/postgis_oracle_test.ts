/**
 * PostGIS as explore's oracle: the same tasks in a throwaway PostgreSQL cluster (bench/peers/) and
 * in Deno KV, every explore kind asked of both, and each answer's ids, order and distances
 * compared. Skipped, saying why, where PostgreSQL or PostGIS is not installed.
 */
import assert from "node:assert/strict";
import { type ExploreFilters, exploreFilters } from "../../domain/explore.ts";
import { generateTask } from "../../bench/datasets/explore_data.ts";
import { queryKinds } from "../../bench/datasets/explore_data_queries.ts";
import { loadTasks } from "../../bench/explore/explore_load.ts";
import { missingPeer, startCluster } from "../../bench/peers/pg_cluster.ts";
import { loadPeer } from "../../bench/peers/pg_schema.ts";
import { comparePeers, type PeerCase } from "../../bench/peers/compare.ts";
import { generateFilters, generateTasks, near, PLACES } from "../explore/explore_fixtures.ts";
import { seededRandom } from "../../scripts/seeded_random.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";

const missing = await missingPeer();
if (missing !== null) console.log(`explore's PostGIS oracle is skipped: ${missing}`);

const BENCH_TASKS = 10_000;
const PER_KIND = 6;
const WANT = 45;

/** A box around one of the fixtures' places, some across the antimeridian or up to a pole. */
function randomBox(rnd: () => number): ExploreFilters["bbox"] {
  const [lon, lat] = near(rnd, PLACES[Math.floor(rnd() * PLACES.length)]);
  const halfLon = 0.05 + rnd() * 4;
  const halfLat = 0.05 + rnd() * 2;
  const wrap = (x: number) => (x > 180 ? x - 360 : x < -180 ? x + 360 : x);
  const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
  return {
    minLon: r4(wrap(lon - halfLon)),
    minLat: r4(Math.max(-90, lat - halfLat)),
    maxLon: r4(wrap(lon + halfLon)),
    maxLat: r4(Math.min(90, lat + halfLat)),
  };
}

interface Failure {
  kind: string;
  query: PeerCase;
  difference: unknown;
}

async function compareAll(
  { tasks, count, cases }: {
    tasks: (i: number) => TaskRecord;
    count: number;
    cases: { kind: string; query: PeerCase }[];
  },
): Promise<{ failures: Failure[]; compared: number; answered: number }> {
  await using cluster = await startCluster();
  const sql = cluster.connect();
  const path = `${cluster.dir}/explore.sqlite`;
  const kv = await Deno.openKv(path);
  try {
    await Promise.all([
      loadTasks(kv, count, tasks),
      loadPeer(sql, { table: "tasks", count, task: tasks }),
    ]);
    const failures: Failure[] = [];
    let answered = 0;
    for (const { kind, query } of cases) {
      const { items, difference } = await comparePeers(kv, sql, {
        table: "tasks",
        query,
        want: WANT,
      });
      if (items > 0) answered++;
      if (difference) failures.push({ kind, query, difference });
    }
    return { failures, compared: cases.length, answered };
  } finally {
    kv.close();
  }
}

function report(failures: Failure[]): string {
  return JSON.stringify(failures.slice(0, 5), null, 1);
}

Deno.test({
  name: "PostGIS answers every explore kind as explore does over the bench's 10k tasks",
  ignore: missing !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const cases = queryKinds(PER_KIND).flatMap((kind) =>
      kind.queries.map((q) => ({
        kind: kind.name,
        query: { filters: exploreFilters(q), sort: q.sort ?? "newest" } as PeerCase,
      }))
    );
    const { failures, compared, answered } = await compareAll({
      tasks: (i) => generateTask(i, BENCH_TASKS),
      count: BENCH_TASKS,
      cases,
    });
    assert.equal(
      failures.length,
      0,
      `${failures.length} of ${compared} differ: ${report(failures)}`,
    );
    // Empty answers agree trivially: most queries must find tasks for the comparison to hold.
    assert.ok(answered >= compared * 0.8, `${answered} of ${compared} queries found tasks`);
  },
});

Deno.test({
  name:
    "PostGIS answers explore's hard cases (antimeridian, poles, radius classes, ties) as explore does",
  ignore: missing !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tasks = generateTasks(7, 2_500);
    const cases: { kind: string; query: PeerCase }[] = [];
    for (let seed = 1; seed <= 150; seed++) {
      const filters: ExploreFilters = generateFilters(seed);
      cases.push({ kind: "random", query: { filters, sort: "newest" } });
      if (filters.geo) {
        cases.push({ kind: "random, nearest", query: { filters, sort: "distance" } });
      }
      const rnd = seededRandom(seed * 31);
      const boxed = { ...generateFilters(seed + 1000), bbox: randomBox(rnd) };
      if (rnd() < 0.5) delete boxed.geo;
      cases.push({ kind: "random bbox", query: { filters: boxed, sort: "newest" } });
      if (boxed.geo) {
        cases.push({ kind: "random bbox, nearest", query: { filters: boxed, sort: "distance" } });
      }
    }
    const { failures, compared, answered } = await compareAll({
      tasks: (i) => tasks[i],
      count: tasks.length,
      cases,
    });
    assert.equal(
      failures.length,
      0,
      `${failures.length} of ${compared} differ: ${report(failures)}`,
    );
    // Random filters combine into empty answers often; enough of them must still find tasks.
    assert.ok(answered >= compared * 0.4, `${answered} of ${compared} queries found tasks`);
  },
});
