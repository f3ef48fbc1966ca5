/**
 * The known name a mistyped one most likely meant (`lat` → `latitude`, `maxpeople` →
 * `maxPeople`), for errors that say how to fix a call; none when nothing is close.
 */

/**
 * Names longer than this are not compared: no known name comes near it, and the comparison's
 * work grows with the name's length (an anonymous request could send a 60 KB query name).
 */
export const COMPARED_LENGTH = 64;

/** Counts the comparison's work (cells of the distance table), for the bound's tests. */
export interface ComparisonMeter {
  cells: number;
}

/** Lower case without separators: `max_people`, `Max-People` and `maxPeople` are one name. */
function folded(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, "");
}

/** Optimal string alignment distance: edits, with a swap of neighbours as one edit. */
function distance(a: string, b: string, meter?: ComparisonMeter): number {
  if (meter) meter.cells += a.length * b.length;
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
      }
    }
  }
  return rows[a.length][b.length];
}

/** An abbreviation: same first letter, the rest in order within the name (`lng` in `longitude`). */
function abbreviates(short: string, long: string): boolean {
  if (short.length < 2 || short.length >= long.length || short[0] !== long[0]) return false;
  let at = 0;
  for (const char of short) {
    at = long.indexOf(char, at) + 1;
    if (at === 0) return false;
  }
  return true;
}

/**
 * How close `name` is to `known`, lower is closer; undefined when too far to suggest. Same name
 * but for case or separators beats a prefix, which beats an abbreviation, which beats a typo of
 * at most a third of the name's letters.
 */
function closeness(name: string, known: string, meter?: ComparisonMeter): number | undefined {
  const a = folded(name);
  const b = folded(known);
  if (a === b) return 0;
  if (a.length >= 2 && (b.startsWith(a) || a.startsWith(b))) {
    return 1 + Math.abs(a.length - b.length) / 100;
  }
  if (abbreviates(a, b)) return 2 + (b.length - a.length) / 100;
  const edits = distance(a, b, meter);
  if (edits <= Math.max(1, Math.floor(Math.min(a.length, b.length) / 3))) return 3 + edits;
  return undefined;
}

/** The known name closest to `name`, or undefined when none is close (or `name` is too long). */
export function closestName(
  name: string,
  known: Iterable<string>,
  meter?: ComparisonMeter,
): string | undefined {
  if (name.length > COMPARED_LENGTH) return undefined;
  let best: { name: string; score: number } | undefined;
  for (const candidate of known) {
    if (candidate.length > COMPARED_LENGTH) continue;
    const score = closeness(name, candidate, meter);
    if (score !== undefined && (best === undefined || score < best.score)) {
      best = { name: candidate, score };
    }
  }
  return best?.name;
}

/** A name as an error echoes it: at most COMPARED_LENGTH characters, then an ellipsis. */
export function shownName(name: string): string {
  if (name.length <= COMPARED_LENGTH) return name;
  const code = name.charCodeAt(COMPARED_LENGTH - 1);
  // Never half a surrogate pair.
  const end = code >= 0xd800 && code <= 0xdbff ? COMPARED_LENGTH - 1 : COMPARED_LENGTH;
  return `${name.slice(0, end)}…`;
}
