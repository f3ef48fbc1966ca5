/**
 * The known name a mistyped one most likely meant (`lat` → `latitude`, `maxpeople` →
 * `maxPeople`), for errors that say how to fix a call; none when nothing is close.
 */

/** Lower case without separators: `max_people`, `Max-People` and `maxPeople` are one name. */
function folded(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, "");
}

/** Optimal string alignment distance: edits, with a swap of neighbours as one edit. */
function distance(a: string, b: string): number {
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
function closeness(name: string, known: string): number | undefined {
  const a = folded(name);
  const b = folded(known);
  if (a === b) return 0;
  if (a.length >= 2 && (b.startsWith(a) || a.startsWith(b))) {
    return 1 + Math.abs(a.length - b.length) / 100;
  }
  if (abbreviates(a, b)) return 2 + (b.length - a.length) / 100;
  const edits = distance(a, b);
  if (edits <= Math.max(1, Math.floor(Math.min(a.length, b.length) / 3))) return 3 + edits;
  return undefined;
}

/** The known name closest to `name`, or undefined when none is close. */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  let best: { name: string; score: number } | undefined;
  for (const candidate of known) {
    const score = closeness(name, candidate);
    if (score !== undefined && (best === undefined || score < best.score)) {
      best = { name: candidate, score };
    }
  }
  return best?.name;
}
