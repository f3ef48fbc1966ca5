/**
 * `deno task bench:explore-packed [--tasks=20000] [--queries=100] [--rounds=5] [--all-layers]`:
 * would packed cell pages (many cards in one KV value) pay for geo and bbox pages? Records every
 * KV read a page makes today, then replays it in process: as it is, without the geo cells' reads
 * (the floor), and with each geo-cell list replaced by reads of packed chunks holding the same
 * cards newest first (listed chunks, or head chunks by getMany). Chunks are written into a
 * scratch copy of the store; the service's layout is untouched (issue 28's layout-9 question).
 */
import { explore } from "../kv/keyspace.ts";
import { exploreTasks } from "../kv/explore/newest_page.ts";
import { exploreFilters } from "../domain/explore.ts";
import { buildCache, kvPath, readManifest } from "./explore_cache.ts";
import { cpuKinds } from "./explore_reads.ts";
import { loadAverage, markdownTable, writeResults } from "./results.ts";
import { numberFlag as flag } from "./flags.ts";
import {
  bucket,
  cellId,
  CHUNK_ROOT,
  fixed,
  fixedBytes,
  HEAD_KINDS,
  writeChunks,
  writeHeads,
} from "./explore_packed_chunks.ts";
import { cellOf, chunkSpan, type Read, recording, replay } from "./explore_packed_replay.ts";
import { cpuUsage } from "node:process";

async function main() {
  const tasks = flag("tasks", 20_000);
  const queries = flag("queries", 100);
  const rounds = flag("rounds", 5);
  const allLayers = Deno.args.includes("--all-layers");
  const layers = new Set(allLayers ? ["c", "r25", "r100", "r500"] : ["c"]);
  if (!await readManifest(tasks)) await buildCache(tasks, console.error);
  const scratch = `${kvPath(tasks)}.packed-proto`;
  for (const s of ["", "-wal", "-shm"]) await Deno.remove(scratch + s).catch(() => {});
  await Deno.copyFile(kvPath(tasks), scratch);
  const kv = await Deno.openKv(scratch);
  // The order key's time part is 10 Crockford digits of ms: 4 digits leave 2^30 ms (12.4 days).
  const packings = [
    fixed(32),
    fixed(64),
    fixedBytes(64),
    bucket(4, "~12.4 days"),
    bucket(3, "~1.1 years"),
  ];
  const chunkStats = await writeChunks(kv, layers, packings);
  // fixed(64) (as V8 values, as bytes): the chunks a head's overflow is read from
  const sealed = 1, sealedBytes = 2;
  await writeHeads(kv, layers);
  // Each cell's chunk ids, newest first, per packing.
  const cellKeys = new Map<string, string[]>();
  for await (const e of kv.list({ prefix: explore.byCellRoot() })) {
    if (!layers.has(String(e.key[1]))) continue;
    const cell = cellId(e.key);
    (cellKeys.get(cell) ?? cellKeys.set(cell, []).get(cell)!).push(String(e.key[3]));
  }
  for (const keys of cellKeys.values()) keys.reverse();

  const kinds = cpuKinds(queries).filter((k) =>
    /geo 10 km|geo 100 km, dense|bbox, city/.test(k.name)
  );
  const rows: string[][] = [];
  for (const kind of kinds) {
    const pages: Read[][] = [];
    for (const q of kind.queries) await exploreTasks(kv, { filters: exploreFilters(q), limit: 20 });
    for (const q of kind.queries) {
      const log: Read[] = [];
      await exploreTasks(recording(kv, log), { filters: exploreFilters(q), limit: 20 });
      pages.push(log);
    }
    // Packed replays: a cell's lists become lists of its chunks covering the same positions.
    const packedPages = packings.map((_, p) =>
      pages.map((log) => {
        const done = new Map<string, number>();
        return log.map((r): Read => {
          const cell = cellOf(r, layers);
          if (!cell || r.kind !== "list") return r;
          const from = done.get(cell) ?? 0;
          done.set(cell, from + r.taken);
          const ids = packings[p].chunks(cellKeys.get(cell) ?? []);
          const [layer, hash] = cell.split("/");
          const span = Math.max(1, chunkSpan(ids, from, from + r.taken));
          const skip = from === 0 ? 0 : chunkSpan(ids, 0, from);
          // A refill starts at the chunk its last card was in: listed again (an upper bound).
          return {
            kind: "list",
            selector: { prefix: [CHUNK_ROOT, p, layer, hash] },
            options: { reverse: true, limit: skip + span, batchSize: skip + span },
            taken: skip + span,
          };
        });
      })
    );
    // Head replays: every cell's head in getMany calls of ten, then the cells read deeper than
    // their head list their sealed chunks (fixed 64) from the head's end on.
    const headPages = HEAD_KINDS.map(({ k, bytes }) =>
      pages.map((log) => {
        const out: Read[] = [];
        const taken = new Map<string, number>();
        for (const r of log) {
          const cell = cellOf(r, layers);
          if (!cell || r.kind !== "list") out.push(r);
          else taken.set(cell, (taken.get(cell) ?? 0) + r.taken);
        }
        const cells = [...taken.keys()];
        for (let i = 0; i < cells.length; i += 10) {
          out.push({
            kind: "getMany",
            keys: cells.slice(i, i + 10).map((c) => [
              CHUNK_ROOT,
              bytes ? "headb" : "head",
              k,
              ...c.split("/"),
            ]),
          });
        }
        for (const [cell, n] of taken) {
          if (n <= k) continue;
          const at = bytes ? sealedBytes : sealed;
          const ids = packings[at].chunks(cellKeys.get(cell) ?? []);
          const span = Math.max(1, chunkSpan(ids, k, n));
          out.push({
            kind: "list",
            selector: { prefix: [CHUNK_ROOT, at, ...cell.split("/")] },
            options: { reverse: true, limit: span, batchSize: span },
            taken: span,
          });
        }
        return out;
      })
    );
    const cpu = async (logs: Read[][]) => {
      const t = cpuUsage();
      for (const log of logs) await replay(kv, log);
      const d = cpuUsage(t);
      return (d.user + d.system) / logs.length;
    };
    const pageCpu = async () => {
      const t = cpuUsage();
      for (const q of kind.queries) {
        await exploreTasks(kv, { filters: exploreFilters(q), limit: 20 });
      }
      const d = cpuUsage(t);
      return (d.user + d.system) / kind.queries.length;
    };
    // The floor: the packed layers' reads cost nothing.
    const floorPages = pages.map((log) => log.filter((r) => !cellOf(r, layers)));
    const samples: number[][] = [
      [],
      [],
      [],
      ...packings.map(() => []),
      ...HEAD_KINDS.map(() => []),
    ];
    for (let r = 0; r < rounds; r++) {
      samples[0].push(await pageCpu());
      samples[1].push(await cpu(pages));
      samples[2].push(await cpu(floorPages));
      for (const [p, logs] of packedPages.entries()) samples[3 + p].push(await cpu(logs));
      for (const [h, logs] of headPages.entries()) {
        samples[3 + packings.length + h].push(await cpu(logs));
      }
    }
    const med = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const [page, today, floor, ...rest] = samples.map(med);
    const packed = rest.slice(0, packings.length);
    const heads = rest.slice(packings.length);
    const cellLists = pages.flat().filter((r) => cellOf(r, layers)).length / pages.length;
    const cellEntries = pages.flat().reduce(
      (s, r) => s + (cellOf(r, layers) && r.kind === "list" ? r.taken : 0),
      0,
    ) / pages.length;
    rows.push([
      kind.name,
      page.toFixed(0),
      today.toFixed(0),
      `${cellLists.toFixed(1)} / ${cellEntries.toFixed(0)}`,
      `${floor.toFixed(0)} (${(100 * (today - floor) / page).toFixed(0)}%)`,
      ...packed.map((p, i) => {
        const chunks = packedPages[i].flat().reduce(
          (s, r) =>
            s +
            (r.kind === "list" && (r.selector as { prefix?: Deno.KvKey }).prefix?.[0] === CHUNK_ROOT
              ? r.taken
              : 0),
          0,
        ) / pages.length;
        return `${p.toFixed(0)} (${(100 * (today - p) / page).toFixed(0)}%, ${
          chunks.toFixed(1)
        } chunks)`;
      }),
      ...heads.map((p, i) => {
        const calls = headPages[i].flat().filter((r) =>
          r.kind === "getMany" ? r.keys[0][0] === CHUNK_ROOT : cellOf(r, layers) === null &&
            r.kind === "list" && (r.selector as { prefix?: Deno.KvKey }).prefix?.[0] === CHUNK_ROOT
        ).length / pages.length;
        return `${p.toFixed(0)} (${(100 * (today - p) / page).toFixed(0)}%, ${
          calls.toFixed(1)
        } calls)`;
      }),
    ]);
    console.error(rows.at(-1)!.join(" | "));
  }
  kv.close();
  for (const s of ["", "-wal", "-shm"]) await Deno.remove(scratch + s).catch(() => {});
  const table = markdownTable(
    [
      "page kind",
      "page CPU µs",
      "its reads replayed µs",
      "packed-layer lists / entries",
      "floor: packed layers read free, µs (page cut)",
      ...packings.map((p) => `packed: ${p.name}, µs (page cut, chunks)`),
      ...HEAD_KINDS.map(({ k, bytes }) =>
        `heads of ${k}${bytes ? " as bytes" : ""} by getMany, then sealed 64s, µs (page cut, calls)`
      ),
    ],
    rows,
  );
  const chunkTable = markdownTable(
    ["packing", "chunks", "cards a chunk (mean)", "largest chunk, JSON bytes"],
    packings.map((p, i) => [
      p.name,
      String(chunkStats[i].chunks),
      chunkStats[i].meanCards.toFixed(1),
      String(chunkStats[i].maxBytes),
    ]),
  );
  console.log(`\n${table}\n\n${chunkTable}\n`);
  const path = await writeResults({
    name: `explore_packed_proto${allLayers ? "_all_layers" : ""}`,
    command:
      `deno task bench:explore-packed --tasks=${tasks} --queries=${queries} --rounds=${rounds}${
        allLayers ? " --all-layers" : ""
      }`,
    comparedWith: "the same pages' reads replayed as today's layout (layout 8) lists them",
    body: [
      `${tasks} tasks (bench/explore_data.ts), first pages of 20, ${queries} queries a kind. Every ` +
      "KV read of each page recorded, then replayed in process (CPU of user + system, KV's " +
      `threads included; median of ${rounds} rounds, interleaved). Packed: each list of a geo ` +
      `cell of layers ${[...layers].join(", ")} replaced by one list of that cell's chunks ` +
      "covering the same cards newest first (a refill lists again from the cell's newest chunk, " +
      "an upper bound). Heads: every such cell's newest k cards in one value, all of a page's " +
      "heads in getMany calls of ten, a cell read deeper listing its fixed-64 chunks after. " +
      "Bytes: a chunk as a binary facet table (order key, lon, lat, type, radius, country) " +
      "beside each card's JSON, every facet read in place and 3 items parsed a chunk. " +
      "'Ideal' chunks are cut newest first at a fixed size, which a writer could not keep " +
      "without moving cards between chunks. Page cut: (today's reads - packed reads) / the whole " +
      "page's CPU; floor: the page's reads without the packed layers' reads.",
      "",
      table,
      "",
      chunkTable,
      "",
      `Load average after the run: ${loadAverage()}.`,
    ].join("\n"),
  });
  console.log(`written to ${path}`);
}

if (import.meta.main) await main();
