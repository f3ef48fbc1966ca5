/**
 * The peer bench's table and verdict line: per kind, explore (in process and through the route)
 * beside PostGIS in latency and CPU per query, the KV floor's CPU, the store and load of each,
 * and how many sampled answers differ.
 */
import { markdownTable } from "../lib/results.ts";
import type { KindFigures, SideFigures } from "./peers_measure.ts";
import { ahead, belowFloor } from "./peers_notes.ts";

/** What each side's store took. */
export interface StoreFigures {
  tasks: number;
  kvBytes: number;
  kvLoadSeconds: number;
  pgBytes: number;
  pgLoadSeconds: number;
}

const ms = (s: SideFigures) => `${s.ms.p50.toFixed(2)} / ${s.ms.p99.toFixed(2)}`;
const cpu = (s: SideFigures) => `${Math.round(s.cpuUs.p50)}`;

/** The kinds where PostGIS's CPU is below Deno KV's floor: no layout could match it there. */
export function floorLine(kinds: KindFigures[]): string {
  const below = kinds.filter(belowFloor).length;
  return `KV floor: PostGIS's CPU below Deno KV's floor on ${below} of ${kinds.length} kinds`;
}

/** The kinds where explore's in-process p50 (CPU) is at most PostGIS's. */
export function verdict(kinds: KindFigures[]) {
  const p50 = kinds.filter((k) => k.explore.ms.p50 <= k.postgis.ms.p50).length;
  const cpuAtMost = kinds.filter((k) => k.explore.cpuUs.p50 <= k.postgis.cpuUs.p50).length;
  const differ = kinds.reduce((a, k) => a + k.differ, 0);
  return {
    p50,
    cpu: cpuAtMost,
    differ,
    line: `peers: p50 at most PostGIS's on ${p50} of ${kinds.length} kinds, CPU at most on ` +
      `${cpuAtMost} of ${kinds.length}, ${differ} answers differ`,
  };
}

/** The table of every kind, then the stores'. */
export function peersTable(kinds: KindFigures[], store: StoreFigures): string {
  const rows = kinds.map((k) => [
    k.name,
    ms(k.explore),
    ms(k.route),
    ms(k.postgis),
    cpu(k.explore),
    cpu(k.route),
    cpu(k.postgis),
    cpu(k.floor),
    `${ahead(k.explore.ms.p50, k.postgis.ms.p50)} / ${
      ahead(k.explore.cpuUs.p50, k.postgis.cpuUs.p50)
    }`,
    `${k.explore.items.toFixed(1)} / ${k.postgis.items.toFixed(1)}`,
    `${k.differ} of ${k.sampled}`,
  ]);
  const kindsTable = markdownTable([
    "kind",
    "explore ms p50 / p99",
    "route ms p50 / p99",
    "PostGIS ms p50 / p99",
    "explore CPU µs p50",
    "route CPU µs p50",
    "PostGIS backend CPU µs p50",
    "KV floor CPU µs p50",
    "ahead: p50 / CPU",
    "items explore / PostGIS",
    "answers differ",
  ], rows);
  const perTask = (bytes: number) => `${(bytes / store.tasks / 1024).toFixed(2)} KiB`;
  const storeTable = markdownTable(["store", "bytes per task", "total", "load"], [
    [
      "explore: the Deno KV file (SQLite, with its WAL)",
      perTask(store.kvBytes),
      `${(store.kvBytes / 2 ** 20).toFixed(0)} MiB`,
      `${store.kvLoadSeconds.toFixed(0)} s`,
    ],
    [
      "PostGIS: the table, its TOAST and its 11 indexes (pg_total_relation_size)",
      perTask(store.pgBytes),
      `${(store.pgBytes / 2 ** 20).toFixed(0)} MiB`,
      `${store.pgLoadSeconds.toFixed(0)} s`,
    ],
  ]);
  return `${kindsTable}\n\n${storeTable}`;
}
