/**
 * `deno task bench:peers [--size=1000000] [--queries=100] [--sample=10] [--kinds=text]`: explore
 * beside PostGIS, the engine a team would pick instead, on the same generated tasks: every kind's
 * first page asked of explore (in process and through the route) and of PostgreSQL 15 + PostGIS
 * over its Unix socket, alternately, in latency, CPU per query, store per task and load time, with
 * each page's KV floor (`kv_floor.ts`); and a sample of every kind's answers compared item for
 * item. Installs PostGIS where missing.
 */
import { DATA_VERSION, generateTask } from "../datasets/explore_data.ts";
import { CITIES } from "../datasets/explore_data_places.ts";
import { selectedKinds } from "../explore/explore_bench_args.ts";
import {
  buildCache,
  kvPath,
  readManifest,
  storeBytes,
  warmFile,
} from "../explore/explore_cache.ts";
import { numberFlag } from "../lib/flags.ts";
import { writeResults } from "../lib/results.ts";
import { benchService } from "../lib/service.ts";
import { ensurePostgis } from "./pg_install.ts";
import { startCluster } from "./pg_cluster.ts";
import { loadPeer } from "./pg_schema.ts";
import { type KindFigures, measureKind, PAGE, type Peers } from "./peers_measure.ts";
import { floorLine, peersTable, verdict } from "./peers_report.ts";
import { floorPool } from "./kv_floor.ts";
import { behindNotes } from "./peers_notes.ts";

const WARMUP = 20;
const WARMUP_SEED = 977;
const TABLE = "tasks";

/** What the figures come from, kind by kind; no figures, so that it stays true run after run. */
const WHY = [
  "Why the two differ:",
  "",
  "- A page of explore is a few KV calls (lists of index entries, a getMany of documents for a " +
  "search), each crossing into Deno KV's SQLite and deserializing every entry it lists; a " +
  "PostgreSQL query is one plan run inside one backend over its shared buffers, answering 20 " +
  "ids. Where both read few rows (no filter, city, country) the calls' fixed cost decides.",
  "- Newest first within a dense circle, PostGIS collects every task its GiST index finds in " +
  "the circle and sorts them for the newest 20; explore's cells are kept newest first, so it " +
  "reads each only as deep as the page needs. That is where explore is ahead.",
  "- Nearest first, PostGIS walks its GiST index best first inside one process (KNN); explore " +
  "walks geohash cells best first with a KV list per batch of cells. A sparse area costs explore " +
  "the most lists for the fewest items.",
  "- A word search: GIN gives PostGIS the word's rows at once; explore reads word entries, then " +
  "each candidate's document in getMany calls of ten to check its card and words.",
  "- Store and load: explore writes every index entry with its card (a task is in several " +
  "cells, names, words), each its own SQLite row with its key; PostgreSQL keeps one row a task " +
  "and indexes of small keys.",
].join("\n");

/** What the KV floor column is, and why it errs low. */
const FLOOR = [
  "The KV floor of a page is the least Deno KV work any index layout could answer it with: one",
  "list of exactly the page's entries, each with its card (a perfect layout would carry the card",
  "where explore reads documents), and the page's fixed JS (items, distances, the cursor); no",
  "counter, no purges list, no document. It lists real card entries of this store, explore's",
  "country entries (the shortest keys of its card indexes), a country in turn query by query,",
  "as many as the page's items (an empty page lists an empty range). Its CPU is measured as",
  "explore's is, right after explore's page (which says how many items it holds), while Deno",
  "KV's threads are still awake, so that it errs low: after a wait on PostGIS, waking them",
  "costs CPU. Where PostGIS's CPU is below the floor, no layout over Deno KV could match it.",
].join(" ");

async function main() {
  const size = numberFlag("size", 1_000_000);
  const count = numberFlag("queries", 100);
  const sample = numberFlag("sample", 10);
  await ensurePostgis(console.log);

  const manifest = await readManifest(size) ??
    (console.log(`explore: loading ${size} tasks into ${kvPath(size)}`),
      await buildCache(size, console.log));
  console.log(`explore: ${size} tasks, loaded in ${manifest.seconds.toFixed(0)} s`);

  await using cluster = await startCluster({ sharedBuffers: "1GB" });
  const sql = cluster.connect();
  console.log(`PostGIS: loading ${size} tasks`);
  const pg = await loadPeer(sql, {
    table: TABLE,
    count: size,
    task: (i) => generateTask(i, size),
  });
  console.log(`PostGIS: loaded in ${(pg.ms / 1000).toFixed(0)} s`);
  const [{ pid }] = await sql`select pg_backend_pid() as pid`;

  // As bench:explore does: the store's pages in the page cache, as PostgreSQL's are after its load.
  await warmFile(kvPath(size));
  const kv = await Deno.openKv(kvPath(size));
  await using svc = await benchService({
    kv,
    settings: { ANON_RATE_LIMIT_PER_HOUR: "1000000000", LOG_LEVEL: "silent" },
  });
  const pool = await floorPool(kv, { countries: CITIES.map((c) => c.cc), page: PAGE });
  const peers: Peers = { kv, svc, sql, backendPid: pid, table: TABLE, pool };
  const warmups = selectedKinds(WARMUP, WARMUP_SEED);
  const kinds: KindFigures[] = [];
  for (const [i, kind] of selectedKinds(count).entries()) {
    const figures = await measureKind(peers, { kind, warmup: warmups[i], sample });
    kinds.push(figures);
    console.log(
      `  ${kind.name}: explore ${figures.explore.ms.p50.toFixed(2)} ms, PostGIS ` +
        `${figures.postgis.ms.p50.toFixed(2)} ms, ${figures.differ} of ${figures.sampled} differ`,
    );
  }
  const store = {
    tasks: size,
    kvBytes: await storeBytes(kvPath(size)),
    kvLoadSeconds: manifest.seconds,
    pgBytes: pg.bytes,
    pgLoadSeconds: pg.ms / 1000,
  };
  kv.close();
  const table = peersTable(kinds, store);
  const { line } = verdict(kinds);
  const floor = floorLine(kinds);
  console.log(`\n${table}\n\n${floor}\n${line}`);
  const path = await writeResults({
    name: "peers",
    command: `deno task bench:peers --size=${size} --queries=${count} --sample=${sample}`,
    comparedWith: "PostgreSQL 15 + PostGIS 3 on the same generated tasks (data version " +
      `${DATA_VERSION}), over a Unix socket through the \`postgres\` client, in the same run`,
    body: [
      `${size} tasks; ${count} first pages of ${PAGE} per kind, each asked of the three sides in ` +
      `turn; ${sample} per kind compared item for item (45 items, explore's pages followed by ` +
      "cursor). Latency from the caller's side; explore's CPU is its process's (every thread: " +
      "planner, scan, SQLite), PostGIS's its backend's (/proc/<pid>/schedstat; no parallel " +
      "workers), without the client's parsing of the rows.",
      "",
      FLOOR,
      ...(size < 1_000_000
        ? [
          "",
          `Run at ${size} tasks, not the default 1M: loading a million into both stores ` +
          "takes longer than this machine (two shared cores) had to give.",
        ]
        : []),
      "",
      WHY,
      "",
      table,
      "",
      'Where explore is behind (the lever tried last is in docs/explore.md, "Beside PostGIS"):',
      "",
      behindNotes(kinds),
      "",
      floor,
      line,
    ].join("\n"),
  });
  console.log(`wrote ${path}`);
}

if (import.meta.main) await main();
