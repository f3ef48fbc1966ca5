/** Contract of the geohash and distance helpers behind the explore index. */
import assert from "node:assert/strict";
import { geohashBounds, geohashEncode } from "../domain/geohash.ts";
import { coverCircle, DEFAULT_PRECISIONS } from "../domain/geohash_cover.ts";
import {
  EARTH_RADIUS_KM,
  type GeoBox,
  haversineKm,
  minDistanceToBoxKm,
  type Point,
} from "../domain/geo.ts";
import { seededRandom } from "../scripts/seeded_random.ts";

const RAD = Math.PI / 180;

function normalizeLon(lon: number): number {
  return ((((lon + 180) % 360) + 360) % 360) - 180;
}

/** The point reached from a start by travelling `distanceKm` along `bearingDeg`. */
function destination(
  { lon, lat }: Point,
  bearingDeg: number,
  distanceKm: number,
): [number, number] {
  const delta = distanceKm / EARTH_RADIUS_KM;
  const theta = bearingDeg * RAD;
  const phi1 = lat * RAD;
  const sinPhi2 = Math.sin(phi1) * Math.cos(delta) +
    Math.cos(phi1) * Math.sin(delta) * Math.cos(theta);
  const phi2 = Math.asin(Math.max(-1, Math.min(1, sinPhi2)));
  const lambda2 = lon * RAD +
    Math.atan2(
      Math.sin(theta) * Math.sin(delta) * Math.cos(phi1),
      Math.cos(delta) - Math.sin(phi1) * Math.sin(phi2),
    );
  return [normalizeLon(lambda2 / RAD), phi2 / RAD];
}

function assertCovers(
  { cells, precision }: { cells: readonly string[]; precision: number },
  [lon, lat]: readonly [number, number],
  context: string,
): void {
  const hash = geohashEncode(lon, lat, precision);
  assert.ok(cells.includes(hash), `${context}: point (${lon}, ${lat}) in ${hash} not covered`);
}

function assertSortedUnique(cells: readonly string[]): void {
  for (let i = 1; i < cells.length; i++) assert.ok(cells[i - 1] < cells[i], "sorted, distinct");
}

Deno.test("haversineKm measures great-circle distances on a 6371.0088 km sphere", async (t) => {
  await t.step("Paris to London is about 343.5 km", () => {
    const d = haversineKm({ lon: 2.3522, lat: 48.8566 }, { lon: -0.1276, lat: 51.5072 });
    assert.ok(Math.abs(d - 343.5) <= 1, `got ${d}`);
  });
  await t.step("New York to Los Angeles is about 3936 km", () => {
    const d = haversineKm({ lon: -73.9857, lat: 40.7484 }, { lon: -118.2437, lat: 34.0522 });
    assert.ok(Math.abs(d - 3936) <= 5, `got ${d}`);
  });
  await t.step("one degree along the equator is R·π/180", () => {
    assert.ok(
      Math.abs(
        haversineKm({ lon: 10, lat: 0 }, { lon: 11, lat: 0 }) - (EARTH_RADIUS_KM * Math.PI) / 180,
      ) < 1e-9,
    );
  });
  await t.step("antipodes are half a circumference apart", () => {
    assert.ok(
      Math.abs(haversineKm({ lon: 0, lat: 0 }, { lon: 180, lat: 0 }) - EARTH_RADIUS_KM * Math.PI) <
        1e-6,
    );
    assert.ok(
      Math.abs(haversineKm({ lon: 0, lat: 90 }, { lon: 0, lat: -90 }) - EARTH_RADIUS_KM * Math.PI) <
        1e-6,
    );
  });
  await t.step("distance across the antimeridian is short", () => {
    const d = haversineKm({ lon: 179.5, lat: 0 }, { lon: -179.5, lat: 0 });
    assert.ok(Math.abs(d - (EARTH_RADIUS_KM * Math.PI) / 180) < 1e-6, `got ${d}`);
  });
  await t.step("is zero for a point and symmetric", () => {
    assert.equal(haversineKm({ lon: 12.3, lat: 45.6 }, { lon: 12.3, lat: 45.6 }), 0);
    assert.equal(
      haversineKm({ lon: 1, lat: 2 }, { lon: 3, lat: 4 }),
      haversineKm({ lon: 3, lat: 4 }, { lon: 1, lat: 2 }),
    );
  });
  await t.step("stays accurate for metre-scale distances", () => {
    const d = haversineKm({ lon: 0, lat: 0 }, { lon: 0, lat: 0.00001 });
    assert.ok(Math.abs(d - (0.00001 * RAD * EARTH_RADIUS_KM)) < 1e-12, `got ${d}`);
  });
});

Deno.test("geohashEncode produces standard base32 geohashes", async (t) => {
  await t.step("matches published reference hashes", () => {
    assert.equal(geohashEncode(10.40744, 57.64911, 11), "u4pruydqqvj");
    assert.equal(geohashEncode(-5.6, 42.6, 5), "ezs42");
    assert.equal(geohashEncode(0, 0, 1), "s");
    assert.equal(geohashEncode(-0.1276, 51.5072, 6), "gcpvj0");
  });
  await t.step("maps the corners of the world to the first and last cells", () => {
    assert.equal(geohashEncode(-180, -90, 4), "0000");
    assert.equal(geohashEncode(180, 90, 4), "zzzz");
  });
  await t.step("a shorter hash is a prefix of a longer one for the same point", () => {
    const rand = seededRandom(7);
    for (let i = 0; i < 500; i++) {
      const lon = rand() * 360 - 180;
      const lat = rand() * 180 - 90;
      const long = geohashEncode(lon, lat, 12);
      for (let p = 1; p < 12; p++) assert.equal(geohashEncode(lon, lat, p), long.slice(0, p));
    }
  });
  await t.step("wraps longitudes outside ±180", () => {
    assert.equal(geohashEncode(190, 10, 6), geohashEncode(-170, 10, 6));
    assert.equal(geohashEncode(-370, 10, 6), geohashEncode(-10, 10, 6));
  });
  await t.step("rejects bad precisions and coordinates with a RangeError", () => {
    assert.throws(() => geohashEncode(0, 0, 0), RangeError);
    assert.throws(() => geohashEncode(0, 0, 13), RangeError);
    assert.throws(() => geohashEncode(0, 0, 2.5), RangeError);
    assert.throws(() => geohashEncode(0, 91, 4), RangeError);
    assert.throws(() => geohashEncode(Number.NaN, 0, 4), RangeError);
  });
});

Deno.test("geohashBounds returns the rectangle of a geohash", async (t) => {
  await t.step("matches the reference rectangle of ezs42", () => {
    const b = geohashBounds("ezs42");
    assert.ok(Math.abs(b.minLat - 42.583) < 1e-3 && Math.abs(b.maxLat - 42.627) < 1e-3);
    assert.ok(Math.abs(b.minLon - -5.625) < 1e-3 && Math.abs(b.maxLon - -5.581) < 1e-3);
  });
  await t.step("every point lies in the rectangle of its own hash, min inclusive", () => {
    const rand = seededRandom(11);
    for (let i = 0; i < 2000; i++) {
      const lon = rand() * 360 - 180;
      const lat = rand() * 180 - 90;
      const p = 1 + Math.floor(rand() * 12);
      const b = geohashBounds(geohashEncode(lon, lat, p));
      assert.ok(b.minLon <= lon && lon <= b.maxLon && b.minLat <= lat && lat <= b.maxLat);
    }
  });
  await t.step("a cell's south-west corner encodes back to the cell", () => {
    const rand = seededRandom(12);
    for (let i = 0; i < 500; i++) {
      const hash = geohashEncode(rand() * 360 - 180, rand() * 180 - 90, 1 + (i % 12));
      const b = geohashBounds(hash);
      assert.equal(geohashEncode(b.minLon, b.minLat, hash.length), hash);
      assert.equal(
        geohashEncode((b.minLon + b.maxLon) / 2, (b.minLat + b.maxLat) / 2, hash.length),
        hash,
      );
    }
  });
  await t.step("the empty hash is the whole world", () => {
    assert.deepEqual(geohashBounds(""), { minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 });
  });
  await t.step("rejects characters outside the geohash alphabet", () => {
    for (const bad of ["a", "i", "l", "o", "U4", "ezs4!", "é"]) {
      assert.throws(() => geohashBounds(bad), RangeError, bad);
    }
  });
});

Deno.test("minDistanceToBoxKm never over-estimates the distance to a box", async (t) => {
  await t.step("is zero inside the box and exact straight north or south of it", () => {
    const box: GeoBox = { minLon: 0, minLat: 10, maxLon: 5, maxLat: 20 };
    assert.equal(minDistanceToBoxKm(2, 15, box), 0);
    const north = minDistanceToBoxKm(2, 25, box);
    assert.ok(Math.abs(north - haversineKm({ lon: 2, lat: 25 }, { lon: 2, lat: 20 })) < 1e-5);
  });
  await t.step("measures across the antimeridian", () => {
    const box: GeoBox = { minLon: 170, minLat: -5, maxLon: 180, maxLat: 5 };
    const d = minDistanceToBoxKm(-179, 0, box);
    assert.ok(
      Math.abs(d - haversineKm({ lon: -179, lat: 0 }, { lon: 180, lat: 0 })) < 1e-5,
      `got ${d}`,
    );
  });
  await t.step("is a tight lower bound over random boxes and points", () => {
    const rand = seededRandom(21);
    for (let i = 0; i < 3000; i++) {
      const lon = rand() * 360 - 180;
      const lat = rand() < 0.2 ? (rand() < 0.5 ? -1 : 1) * (80 + rand() * 10) : rand() * 180 - 90;
      const p = 1 + Math.floor(rand() * 4);
      const box = geohashBounds(geohashEncode(rand() * 360 - 180, rand() * 180 - 90, p));
      const bound = minDistanceToBoxKm(lon, lat, box);
      let best = Infinity;
      const steps = 24;
      for (let a = 0; a <= steps; a++) {
        for (let b = 0; b <= steps; b++) {
          const x = box.minLon + ((box.maxLon - box.minLon) * a) / steps;
          const y = box.minLat + ((box.maxLat - box.minLat) * b) / steps;
          const d = haversineKm({ lon, lat }, { lon: x, lat: y });
          assert.ok(bound <= d + 1e-9, `seed 21 #${i}: bound ${bound} > ${d}`);
          best = Math.min(best, d);
        }
      }
      // The sampled minimum exceeds the true one by at most about one sampling step.
      const step =
        haversineKm({ lon: box.minLon, lat: box.minLat }, { lon: box.maxLon, lat: box.maxLat }) /
        steps;
      assert.ok(best - bound <= step + 1e-3, `seed 21 #${i}: bound ${bound} far below ${best}`);
    }
  });
});

Deno.test("coverCircle picks the finest precision that fits", async (t) => {
  await t.step("a 10 km circle in Paris uses precision 4 within 12 cells", () => {
    const cover = coverCircle({ lon: 2.3522, lat: 48.8566, radiusKm: 10 });
    assert.equal(cover.precision, 4);
    assert.ok(cover.cells.length >= 1 && cover.cells.length <= 12);
    assert.ok(cover.cells.every((c) => c.length === 4));
  });
  await t.step("a 1000 km circle falls back to the coarsest default precision", () => {
    const cover = coverCircle({ lon: 2.3522, lat: 48.8566, radiusKm: 1000 });
    assert.equal(cover.precision, Math.min(...DEFAULT_PRECISIONS));
  });
  await t.step("uses the precisions it is given, finest first", () => {
    const cover = coverCircle({ lon: 2.3522, lat: 48.8566, radiusKm: 1 }, {
      maxCells: 12,
      precisions: [1, 2, 3, 4, 5],
    });
    assert.equal(cover.precision, 5);
  });
  await t.step("returns the coarsest precision's cells however many when none fits", () => {
    const cover = coverCircle({ lon: 2.3522, lat: 48.8566, radiusKm: 300 }, {
      maxCells: 2,
      precisions: [4],
    });
    assert.equal(cover.precision, 4);
    assert.ok(cover.cells.length > 2);
    const rand = seededRandom(31);
    for (let i = 0; i < 500; i++) {
      const [x, y] = destination(
        { lon: 2.3522, lat: 48.8566 },
        rand() * 360,
        300 * Math.sqrt(rand()),
      );
      assertCovers({ cells: cover.cells, precision: 4 }, [x, y], "fallback");
    }
  });
  await t.step("a circle over the whole earth returns all 32 precision-1 cells", () => {
    const cover = coverCircle({ lon: 0, lat: 0, radiusKm: 20100 }, {
      maxCells: 12,
      precisions: [1],
    });
    assert.equal(cover.cells.length, 32);
  });
  await t.step("a zero radius still covers its centre", () => {
    const cover = coverCircle({ lon: 2.3522, lat: 48.8566, radiusKm: 0 });
    assert.deepEqual(cover, { precision: 4, cells: [geohashEncode(2.3522, 48.8566, 4)] });
  });
  await t.step("prunes cells of the bounding box that the circle cannot reach", () => {
    // At 60°N a 400 km circle's box corners lie well outside the circle.
    const cover = coverCircle({ lon: 10, lat: 60, radiusKm: 400 }, {
      maxCells: 1000,
      precisions: [4],
    });
    for (const cell of cover.cells) {
      assert.ok(minDistanceToBoxKm(10, 60, geohashBounds(cell)) <= 400 + 1e-3);
    }
    const corner = geohashEncode(...destination({ lon: 10, lat: 60 }, 45, 560), 4);
    assert.ok(!cover.cells.includes(corner));
  });
  await t.step("returns sorted, distinct cells", () => {
    for (const [lon, lat, r] of [[179.99, 0, 300], [0, 89.9, 200], [-179.5, -60, 800]]) {
      assertSortedUnique(coverCircle({ lon, lat, radiusKm: r }).cells);
    }
  });
  await t.step("rejects negative radii, bad maxCells and bad precisions", () => {
    assert.throws(() => coverCircle({ lon: 0, lat: 0, radiusKm: -1 }), RangeError);
    assert.throws(() => coverCircle({ lon: 0, lat: 0, radiusKm: Number.NaN }), RangeError);
    assert.throws(() => coverCircle({ lon: 0, lat: 0, radiusKm: 1 }, { maxCells: 0 }), RangeError);
    assert.throws(
      () => coverCircle({ lon: 0, lat: 0, radiusKm: 1 }, { maxCells: 12, precisions: [] }),
      RangeError,
    );
    assert.throws(
      () => coverCircle({ lon: 0, lat: 0, radiusKm: 1 }, { maxCells: 12, precisions: [13] }),
      RangeError,
    );
    assert.throws(
      () => coverCircle({ lon: 0, lat: 0, radiusKm: 1 }, { maxCells: 12, extraKm: -1 }),
      RangeError,
    );
    assert.throws(() => coverCircle({ lon: 0, lat: 95, radiusKm: 1 }), RangeError);
  });
});

Deno.test("coverCircle covers every point within the radius", async (t) => {
  await t.step("near the antimeridian, on both sides of it", () => {
    for (const lon of [179.99, -179.99, 180, -180, 179.5]) {
      const cover = coverCircle({ lon, lat: 10, radiusKm: 50 });
      for (let bearing = 0; bearing < 360; bearing += 5) {
        const [x, y] = destination({ lon, lat: 10 }, bearing, 50);
        assertCovers(cover, [x, y], `lon ${lon}`);
      }
      if (Math.abs(lon) < 179.9) continue; // this circle stays east of the antimeridian
      assert.ok(cover.cells.some((c) => geohashBounds(c).minLon < 0), `lon ${lon}: west half`);
      assert.ok(cover.cells.some((c) => geohashBounds(c).maxLon > 0), `lon ${lon}: east half`);
    }
  });
  await t.step("around a pole, on every meridian", () => {
    for (const lat of [89.5, -89.5, 90, -90]) {
      const cover = coverCircle({ lon: 30, lat, radiusKm: 100 });
      for (let lon = -180; lon <= 180; lon += 1) {
        const y = lat > 0 ? 89.95 : -89.95;
        assertCovers(cover, [lon, y], `lat ${lat}`);
      }
    }
  });
  await t.step("when the circle just touches a pole", () => {
    const r = (1 * RAD) * EARTH_RADIUS_KM; // from 89°N exactly to the pole
    const cover = coverCircle({ lon: 0, lat: 89, radiusKm: r }, {
      maxCells: 12,
      precisions: [2, 3, 4],
    });
    for (let bearing = 0; bearing < 360; bearing += 1) {
      const [x, y] = destination({ lon: 0, lat: 89 }, bearing, r);
      assertCovers(cover, [x, y], "touching");
    }
  });
  await t.step("when the circle ends exactly on a cell edge", () => {
    // Radii that are whole multiples of a cell's size put the circle's extreme points on cell
    // edges, where rounding decides between two cells.
    for (const precision of [1, 2, 3, 4, 5]) {
      const lonBits = Math.ceil((precision * 5) / 2);
      const cellLon = 360 / 2 ** lonBits;
      const cellLat = 180 / 2 ** (precision * 5 - lonBits);
      for (let k = 1; k <= 40; k++) {
        for (const [step, bearings] of [[cellLon, [90, 270]], [cellLat, [0, 180]]] as const) {
          const r = k * step * RAD * EARTH_RADIUS_KM;
          if (r > 2000) continue;
          const cover = coverCircle({ lon: 0, lat: 0, radiusKm: r }, {
            maxCells: 10_000,
            precisions: [precision],
          });
          for (const bearing of bearings) {
            const [x, y] = destination({ lon: 0, lat: 0 }, bearing, r);
            assertCovers(
              { cells: cover.cells, precision },
              [x, y],
              `p${precision} k${k} b${bearing}`,
            );
          }
        }
      }
    }
  });
  await t.step("for radii beyond a quarter of the circumference", () => {
    const rand = seededRandom(41);
    for (let i = 0; i < 200; i++) {
      const lon = rand() * 360 - 180;
      const lat = Math.asin(rand() * 2 - 1) / RAD;
      const radius = 5000 + rand() * 16000;
      const cover = coverCircle({ lon, lat, radiusKm: radius }, {
        maxCells: 12,
        precisions: [1, 2],
      });
      for (let j = 0; j < 50; j++) {
        const distance = j < 10 ? radius : radius * Math.sqrt(rand());
        const [x, y] = destination({ lon, lat }, rand() * 360, distance);
        assertCovers(cover, [x, y], `seed 41 #${i}`);
      }
    }
  });
  await t.step("widened by extraKm for radius-type tasks", () => {
    const cover = coverCircle({ lon: 2.3522, lat: 48.8566, radiusKm: 10 }, {
      maxCells: 12,
      extraKm: 500,
    });
    for (let bearing = 0; bearing < 360; bearing += 3) {
      const [x, y] = destination({ lon: 2.3522, lat: 48.8566 }, bearing, 510);
      assertCovers(cover, [x, y], "extraKm");
    }
  });
  await t.step(
    "for 2000 random centres and radii up to 1000 km, poles and antimeridian included",
    () => {
      const seed = 20240601;
      const rand = seededRandom(seed);
      const precisionSets: readonly (readonly number[])[] = [
        DEFAULT_PRECISIONS,
        [1, 2, 3, 4, 5],
        [3, 4],
        [2],
      ];
      for (let i = 0; i < 2000; i++) {
        const kind = i % 5;
        let lon = rand() * 360 - 180;
        let lat = Math.asin(rand() * 2 - 1) / RAD;
        if (kind === 1) lat = (rand() < 0.5 ? -1 : 1) * (80 + rand() * 10);
        if (kind === 2) lon = (rand() < 0.5 ? -1 : 1) * (175 + rand() * 5);
        if (kind === 3) {
          lon = (rand() < 0.5 ? -1 : 1) * (170 + rand() * 10);
          lat = (rand() < 0.5 ? -1 : 1) * (85 + rand() * 5);
        }
        const radius = Math.exp(rand() * Math.log(1000)); // log-uniform over 1..1000 km
        const precisions = precisionSets[i % precisionSets.length];
        const maxCells = [1, 4, 12, 32][Math.floor(rand() * 4)];
        const cover = coverCircle({ lon, lat, radiusKm: radius }, { maxCells, precisions });
        const context = `seed ${seed} #${i} (${lon}, ${lat}) r=${radius} max=${maxCells}`;

        assert.ok(precisions.includes(cover.precision), context);
        if (cover.precision !== Math.min(...precisions)) {
          assert.ok(cover.cells.length <= maxCells, `${context}: too many cells`);
        }
        assertSortedUnique(cover.cells);
        assertCovers(cover, [lon, lat], context);
        for (let j = 0; j < 24; j++) {
          // A quarter of the points sit exactly on the circle, where misses would show first.
          const distance = j < 6 ? radius : radius * Math.sqrt(rand());
          const bearing = j < 4 ? j * 90 : rand() * 360;
          const [x, y] = destination({ lon, lat }, bearing, distance);
          assertCovers(cover, [x, y], context);
        }
      }
    },
  );
});
