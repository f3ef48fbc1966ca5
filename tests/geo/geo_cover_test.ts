/** coverCircle: the geohash cells that cover a circle, at the finest precision that fits. */
import assert from "node:assert/strict";
import { geohashBounds, geohashEncode } from "../../domain/geo/geohash.ts";
import { coverCircle, DEFAULT_PRECISIONS } from "../../domain/geo/geohash_cover.ts";
import { EARTH_RADIUS_KM, minDistanceToBoxKm } from "../../domain/geo/geo.ts";
import { seededRandom } from "../../scripts/seeded_random.ts";
import { assertCovers, assertSortedUnique, destination, RAD } from "./geo_fixtures.ts";

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
