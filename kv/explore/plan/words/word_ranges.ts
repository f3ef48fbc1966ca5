/**
 * A word's zones in few lists: zones next to each other in key order that hold few entries are
 * read whole in one list, the others newest first alone, whichever the dictionary says costs less.
 */
import { explore } from "../../../keyspace.ts";
import { MAX_BATCH, PrefixStream } from "../../scan/stream.ts";
import { type Work } from "../../scan/work.ts";
import { RangeRead } from "../../scan/range.ts";
import type { ZoneCount } from "../../shared/plan_memory.ts";

/** What the zone streams of a query word are made from. */
export interface ZoneStreams {
  /** The (word, epoch, zone) cells, in key order. */
  expansion: ZoneCount[];
  /** True for a zone the query reads (all without a circle). */
  reached: (zone: ZoneCount) => boolean;
  /** The first batch a zone read alone lists. */
  batch: (zone: ZoneCount) => number;
  /** Set for a cell of an epoch read only when the page gets down to it (`PrefixStream.ceiling`). */
  ceiling: (zone: ZoneCount) => string | undefined;
  before: string | null;
  work: Work;
}

/**
 * What a list costs in listed entries, for the split: a KV call of the local backend costs about
 * as much as this many entries of a word zone (bench/results/explore_reads.md, the rare word).
 */
const RANGE_LIST_COST = 12;

/** One list: a zone alone (`from === to`, newest first), or zones `from` to `to` whole. */
interface Segment {
  from: number;
  to: number;
  whole: boolean;
}

/**
 * The streams of the reached zones, one each, whose first reads are the segments that cost
 * least in listed entries plus `RANGE_LIST_COST` a list: a zone of a few entries costs less read with
 * its neighbours than alone, and a rare word spans many zones, most holding a few of its entries.
 */
export function zoneStreams(kv: Deno.Kv, plan: ZoneStreams): PrefixStream[] {
  const { expansion, before, work } = plan;
  const streams: PrefixStream[] = [];
  for (const segment of cheapestSegments(plan)) {
    const zones = expansion.slice(segment.from, segment.to + 1).filter(plan.reached);
    const prefixes = zones.map((z) => explore.byWordCellPrefix(z.word, z.epoch, z.zone));
    const ceiling = plan.ceiling(zones[0]);
    if (!segment.whole) {
      const batch = plan.batch(zones[0]);
      streams.push(new PrefixStream(kv, { prefix: prefixes[0], before, work, batch, ceiling }));
      continue;
    }
    const first = expansion[segment.from];
    const last = expansion[segment.to];
    const read = new RangeRead(kv, {
      start: explore.byWordCellPrefix(first.word, first.epoch, first.zone),
      // The least key after every key of the last zone: its zone followed by the least character.
      end: explore.byWordCellPrefix(last.word, last.epoch, `${last.zone}\u0000`),
      members: prefixes,
      size: rangeSize(
        expansion.slice(segment.from, segment.to + 1).reduce((n, z) => n + z.size, 0),
      ),
      work,
    });
    prefixes.forEach((prefix, index) =>
      streams.push(
        new PrefixStream(kv, { prefix, before, work, range: { read, index }, ceiling }),
      )
    );
  }
  return streams;
}

/**
 * What a range lists for cells of `size` entries in all: the sizes of cells are estimates (a
 * zone's count at its epoch's share), so a range holding part of an epoch could hold more, and a
 * range cut short sends its unfinished cells to lists of their own, a round trip later. Three
 * standard deviations more cost a few entries.
 */
export function rangeSize(size: number): number {
  return Math.ceil(size + 3 * Math.sqrt(size)) + 2;
}

/** How many lists the zone streams' first reads take (not counting the epochs left unread). */
export function zoneLists(plan: ZoneStreams): number {
  return cheapestSegments(plan).filter((s) => plan.ceiling(plan.expansion[s.from]) === undefined)
    .length;
}

/**
 * The cheapest split of the reached cells into lists, a (word, epoch) apart: an epoch's lists
 * are read only when the page needs them, so none spans two.
 */
function cheapestSegments(plan: ZoneStreams): Segment[] {
  const { expansion } = plan;
  const segments: Segment[] = [];
  for (let from = 0; from < expansion.length;) {
    let to = from;
    const { word, epoch } = expansion[from];
    while (
      to + 1 < expansion.length && expansion[to + 1].word === word &&
      expansion[to + 1].epoch === epoch
    ) to++;
    const group = expansion.slice(from, to + 1);
    for (const segment of groupSegments({ ...plan, expansion: group })) {
      segments.push({ ...segment, from: segment.from + from, to: segment.to + from });
    }
    from = to + 1;
  }
  return segments;
}

/** The cheapest split of one group's reached cells into lists (a dynamic program over key order). */
function groupSegments(plan: ZoneStreams): Segment[] {
  const { expansion, reached, batch } = plan;
  const n = expansion.length;
  const cost = new Array<number>(n + 1).fill(Infinity);
  const choice = new Array<Segment | null>(n + 1).fill(null);
  cost[0] = 0;
  for (let i = 1; i <= n; i++) {
    const zone = expansion[i - 1];
    if (!reached(zone)) {
      cost[i] = cost[i - 1];
    } else {
      cost[i] = cost[i - 1] + RANGE_LIST_COST + batch(zone);
      choice[i] = { from: i - 1, to: i - 1, whole: false };
    }
    // Whole ranges end and start at reached zones: an unreached one at either end is dropped.
    if (!reached(zone)) continue;
    let size = 0;
    for (let j = i - 1; j >= 0; j--) {
      size += expansion[j].size;
      if (size >= MAX_BATCH) break;
      if (j === i - 1 || !reached(expansion[j])) continue;
      const whole = cost[j] + RANGE_LIST_COST + size + 1;
      if (whole < cost[i]) {
        cost[i] = whole;
        choice[i] = { from: j, to: i - 1, whole: true };
      }
    }
  }
  const segments: Segment[] = [];
  for (let i = n; i > 0;) {
    const segment = choice[i];
    if (segment === null) {
      i--;
      continue;
    }
    segments.push(segment);
    i = segment.from;
  }
  return segments.reverse();
}
