/**
 * Draws from the explore benchmark's seeded random source (an item, a weighted index, a gaussian,
 * a uuid), shared by its places (explore_data_places.ts) and its tasks (explore_data.ts).
 */
export function pickCumulative(cumulative: number[], r: number): number {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const HEX = "0123456789abcdef";

export function uuid(rnd: () => number): string {
  let s = "";
  for (let i = 0; i < 32; i++) {
    if (i === 12) s += "4";
    else if (i === 16) s += "a";
    else s += HEX[Math.floor(rnd() * 16)];
  }
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

export function gaussian(rnd: () => number): number {
  const u = 1 - rnd();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd());
}

export function pick<T>(list: readonly T[], rnd: () => number): T {
  return list[Math.floor(rnd() * list.length)];
}
