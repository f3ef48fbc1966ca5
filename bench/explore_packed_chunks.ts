/**
 * The packed cell pages the explore-packed prototype prices (bench/explore_packed_proto.ts): a
 * geo cell's cards cut into chunks of many cards a value, written into a scratch copy of a store.
 */
import { explore } from "../kv/keyspace.ts";

export const CHUNK_ROOT = "xp_pc_proto";

/** A geo cell's id, `layer/hash`, from a key of `xp_by_cell`. */
export function cellId(key: Deno.KvKey): string {
  return `${String(key[1])}/${String(key[2])}`;
}

/** A packing: how a cell's entries (newest first) are cut into chunks. */
export interface Packing {
  name: string;
  /** Chunks as bytes: a fixed-size facet table read in place, items as JSON read for matches. */
  bytes?: boolean;
  /** The chunk id of each entry, given the cell's order keys newest first. */
  chunks(orderKeys: string[]): string[];
}

export const fixed = (size: number): Packing => ({
  name: `fixed ${size} cards (ideal)`,
  chunks: (keys) =>
    keys.map((_, i) => String(Math.floor((keys.length - 1 - i) / size)).padStart(6, "0")),
});

export const fixedBytes = (size: number): Packing => ({
  ...fixed(size),
  name: `fixed ${size} cards as bytes (ideal)`,
  bytes: true,
});

const FACET_BYTES = 26 + 8 + 8 + 1 + 4 + 2 + 4 + 4;
const encoder = new TextEncoder();

/** A chunk as bytes: per card its order key, a facet and where its item's JSON is; then items. */
function encodeChunk(cards: [string, unknown][]): Uint8Array {
  const items = cards.map(([, card]) => encoder.encode(JSON.stringify(card)));
  const head = 2 + cards.length * FACET_BYTES;
  const out = new Uint8Array(head + items.reduce((n, b) => n + b.length, 0));
  const view = new DataView(out.buffer);
  view.setUint16(0, cards.length);
  let at = head;
  cards.forEach(([orderKey, card], i) => {
    const o = 2 + i * FACET_BYTES;
    out.set(encoder.encode(orderKey), o);
    const loc = (card as unknown[])[8] as unknown[];
    view.setFloat64(o + 26, Number(loc[2]));
    view.setFloat64(o + 34, Number(loc[3]));
    view.setUint8(o + 42, loc[0] === "radius" ? 1 : 0);
    view.setFloat32(o + 43, Number(loc[5] ?? 0));
    out.set(encoder.encode(String(loc[4] ?? "--").slice(0, 2)), o + 47);
    view.setUint32(o + 49, at);
    view.setUint32(o + 53, items[i].length);
    out.set(items[i], at);
    at += items[i].length;
  });
  return out;
}

const decoder = new TextDecoder();
const latin1 = new TextDecoder("latin1");

/** What a page does with a bytes chunk: every facet read in place, `matches` items parsed. */
export function readChunk(bytes: Uint8Array, matches: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getUint16(0);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const o = 2 + i * FACET_BYTES;
    const key = latin1.decode(bytes.subarray(o, o + 26));
    sum += view.getFloat64(o + 26) + view.getFloat64(o + 34) + view.getFloat32(o + 43) +
      view.getUint8(o + 42) + key.length;
    if (i < matches) {
      const at = view.getUint32(o + 49);
      sum +=
        (JSON.parse(decoder.decode(bytes.subarray(at, at + view.getUint32(o + 53)))) as unknown[])
          .length;
    }
  }
  return sum;
}

/** Chunks by a time bucket of the order key's time part (its first `chars` Crockford digits). */
export const bucket = (chars: number, label: string): Packing => ({
  name: `time bucket ${label}`,
  chunks: (keys) => keys.map((k) => k.slice(0, chars)),
});

/** Writes every packed cell's chunks into `kv` under CHUNK_ROOT/<packing index>. */
export async function writeChunks(
  kv: Deno.Kv,
  layers: Set<string>,
  packings: Packing[],
): Promise<{ chunks: number; maxBytes: number; meanCards: number }[]> {
  const byCell = new Map<string, { keys: string[]; values: unknown[] }>();
  for await (const e of kv.list({ prefix: explore.byCellRoot() })) {
    if (!layers.has(String(e.key[1]))) continue;
    const cell = cellId(e.key);
    let c = byCell.get(cell);
    if (!c) byCell.set(cell, c = { keys: [], values: [] });
    c.keys.push(String(e.key[3]));
    c.values.push(e.value);
  }
  const stats = [];
  for (const [p, packing] of packings.entries()) {
    let chunks = 0, maxBytes = 0, cards = 0;
    let atomic = kv.atomic(), ops = 0, sets = 0;
    for (const [cell, c] of byCell) {
      const newest = c.keys.map((_, i) => c.keys.length - 1 - i);
      const ids = packing.chunks(newest.map((i) => c.keys[i]));
      const groups = new Map<string, unknown[]>();
      newest.forEach((i, j) => {
        let g = groups.get(ids[j]);
        if (!g) groups.set(ids[j], g = []);
        g.push([c.keys[i], c.values[i]]);
      });
      const [layer, hash] = cell.split("/");
      for (const [id, group] of groups) {
        const bytes = JSON.stringify(group).length;
        maxBytes = Math.max(maxBytes, bytes);
        chunks++;
        cards += group.length;
        // Chunks over the value limit are split for the prototype; the real design must say how.
        for (let s = 0; s * 150 < group.length; s++) {
          const part = group.slice(s * 150, s * 150 + 150) as [string, unknown][];
          const value = packing.bytes ? encodeChunk(part) : part;
          atomic.set([CHUNK_ROOT, p, layer, hash, id, 999 - s], value);
          ops += JSON.stringify(part).length;
          if (ops >= 400_000 || ++sets >= 900) {
            await atomic.commit();
            atomic = kv.atomic();
            ops = 0;
            sets = 0;
          }
        }
      }
    }
    await atomic.commit();
    stats.push({ chunks, maxBytes, meanCards: cards / chunks });
  }
  return stats;
}

/** Sizes of the head chunks tried: a cell's newest cards, at a key known without listing. */
export const HEADS = [16, 32];
/** Head variants: cards as V8 values, or as bytes (`encodeChunk`). */
export const HEAD_KINDS = HEADS.flatMap((k) => [{ k, bytes: false }, { k, bytes: true }]);

/** Writes each packed cell's head chunk (its newest `k` cards) for every k of HEADS. */
export async function writeHeads(kv: Deno.Kv, layers: Set<string>): Promise<void> {
  const newest = new Map<string, [string, unknown][]>();
  for await (const e of kv.list({ prefix: explore.byCellRoot() }, { reverse: true })) {
    if (!layers.has(String(e.key[1]))) continue;
    const cell = cellId(e.key);
    const cards = newest.get(cell) ?? newest.set(cell, []).get(cell)!;
    if (cards.length < Math.max(...HEADS)) cards.push([String(e.key[3]), e.value]);
  }
  let atomic = kv.atomic(), sets = 0;
  for (const [cell, cards] of newest) {
    const [layer, hash] = cell.split("/");
    for (const k of HEADS) {
      atomic.set([CHUNK_ROOT, "head", k, layer, hash], cards.slice(0, k));
      atomic.set([CHUNK_ROOT, "headb", k, layer, hash], encodeChunk(cards.slice(0, k)));
      if (++sets >= 100) {
        await atomic.commit();
        atomic = kv.atomic();
        sets = 0;
      }
    }
  }
  await atomic.commit();
}
