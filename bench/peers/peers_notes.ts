/**
 * Why explore is behind PostGIS on a kind where it is, and the next lever there: one note per
 * family of kinds, without figures, so that it stays true run after run (the table beside it
 * says by how much, and whether it still is).
 */
import { markdownTable } from "../lib/results.ts";
import type { KindFigures } from "./peers_measure.ts";

interface Note {
  kinds: RegExp;
  why: string;
  lever: string;
}

const NOTES: Note[] = [
  {
    kinds: /^no filter$/,
    why:
      "both read about a page of rows; explore lists the purges and every class's documents in " +
      "one newest-first list (two KV calls in one round trip, each crossing into SQLite, every " +
      "entry's key and card deserialized), PostgreSQL one B-tree range",
    lever: "the purges read in the card list's own call (their markers in its range, above every " +
      "order key, written with the purge); past that, Deno KV's cost per call and entry",
  },
  {
    kinds: /^(cityName|countryCode)$/,
    why: "both read about a page; explore's two KV calls in one round trip (the purges and the " +
      "name's list), each crossing into SQLite, every entry's key and card deserialized, " +
      "against one B-tree range in one backend",
    lever: "none in the JS: the page's own code is a small share beside its two calls' " +
      "deserialization and SQLite's work; a pending-purges count costs what the empty purges " +
      "list does, a watch is not exact across instances, and a name's list holds no other " +
      "entries a purge marker could ride in; past that call it is Deno KV's cost per entry",
  },
  {
    kinds: /common word/,
    why: "the documents drive, every class's in one newest-first list, each checked for the " +
      "word: several documents read with all their words for each item shown; PostgreSQL " +
      "filters its newest-first B-tree on the tsvector in place",
    lever: "fewer entries: the word's own entries carrying the card (a search page would read " +
      "the word's entries only, no document), since most of a listed document's cost is its key " +
      "and entry, not its words, now one string",
  },
  {
    kinds: /^nearest.*sparse area$/,
    why: "few tasks over many cells: explore lists the purges, a probe, each disc class's cells " +
      "over the circle (one list a run of adjacent cells, some of them empty) and the point " +
      "cells 25 km past the circle, in two getMany calls of counters; GiST hands PostgreSQL the " +
      "few nearest rows",
    lever: "precision-3 counters for the disc layers, so that an empty disc cell is not listed " +
      "(a layout change). Exact sizes for far cells were measured and do not pay: few overflow",
  },
  {
    kinds: /sparse area$/,
    why: "few tasks spread over many cells and four layers: explore lists every layer's cells " +
      "(a dozen lists, some refilled when a first batch fell short, a third round trip); " +
      "GiST hands PostgreSQL the circle's few rows",
    lever: "cells that fit the circle (more entries a task, a layout change): about half the " +
      "entries are sizing from precision-2 counts, which margins and finer covers do not move, " +
      "and read by a perfect oracle of each stream's depth the same cells cost about PostGIS's " +
      "query; precision-3 counters cost a getMany more than the lists they spare; the fallback " +
      "classes' counters as one key a cell would spare a key a page",
  },
  {
    kinds: /^nearest/,
    why: "PostgreSQL's KNN walks its GiST indexes best first inside one backend; explore walks " +
      "geohash cells best first, one list a run of cells for every class at once, and reads " +
      "twice the page's expected matches so that one batch holds it",
    lever: "a tighter first reach paid by an occasional third round trip; far cells sized " +
      "exactly by a counter of all classes",
  },
  {
    kinds: /antimeridian/,
    why: "the box holds no task: explore lists the purges and reads its eight cells' centre " +
      "counts (two KV calls made at once, one a getMany of eight keys) to learn it is empty; " +
      "PostgreSQL probes two GiST ranges",
    lever: "none that reaches PostGIS: one KV call instead of two (the purges as a marker in " +
      "that getMany) was prototyped and stays behind, one getMany costing about PostGIS's " +
      "whole query; past that, Deno KV's cost per call",
  },
  {
    kinds: /./,
    why: "explore's KV calls and entries against PostgreSQL's one plan",
    lever: "fewer KV calls per page",
  },
];

/** Whether PostGIS's CPU is below Deno KV's floor on a kind: then no layout could match it. */
export function belowFloor(k: KindFigures): boolean {
  return k.floor.cpuUs.p50 > k.postgis.cpuUs.p50;
}

/**
 * The kinds where explore is behind in p50 or in CPU, each with why and the next lever, and
 * whether PostGIS's CPU there is below Deno KV's floor.
 */
export function behindNotes(kinds: KindFigures[]): string {
  const rows = kinds.flatMap((k) => {
    const slower = k.explore.ms.p50 > k.postgis.ms.p50;
    const dearer = k.explore.cpuUs.p50 > k.postgis.cpuUs.p50;
    if (!slower && !dearer) return [];
    const note = NOTES.find((n) => n.kinds.test(k.name))!;
    const behind = slower && dearer ? "p50 and CPU" : slower ? "p50" : "CPU";
    const floor = belowFloor(k) ? "below Deno KV's floor" : "above Deno KV's floor";
    return [[k.name, behind, floor, note.why, note.lever]];
  });
  if (rows.length === 0) return "Explore is behind PostGIS on no kind.";
  return markdownTable(
    ["kind", "explore behind on", "PostGIS's CPU", "why", "next lever"],
    rows,
  );
}

/** Who is ahead on one figure: the lower p50 (or CPU) wins, a tie goes to explore. */
export function ahead(explore: number, postgis: number): string {
  return explore <= postgis ? "explore" : "PostGIS";
}
