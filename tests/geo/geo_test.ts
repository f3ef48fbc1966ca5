/** Contract of the geohash and distance helpers behind the explore index. */
import assert from "node:assert/strict";
import { BASE32, childBounds, geohashBounds, geohashEncode } from "../../domain/geo/geohash.ts";
import {
  EARTH_RADIUS_KM,
  type GeoBox,
  haversineKm,
  minDistanceToBoxKm,
  roughDistanceToBoxKm,
  roughFrom,
} from "../../domain/geo/geo.ts";
import { seededRandom } from "../../scripts/seeded_random.ts";
import { RAD } from "./geo_fixtures.ts";

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

Deno.test("childBounds gives each finer cell's rectangle as geohashBounds does", () => {
  const rand = seededRandom(5);
  for (let i = 0; i < 200; i++) {
    const hash = geohashEncode(rand() * 360 - 180, rand() * 180 - 90, 1 + Math.floor(rand() * 9));
    const boxes = childBounds(hash, geohashBounds(hash));
    assert.equal(boxes.length, 32);
    [...BASE32].forEach((c, j) => assert.deepEqual(boxes[j], geohashBounds(hash + c), hash + c));
  }
});

Deno.test("roughDistanceToBoxKm is a lower bound of minDistanceToBoxKm, close for small cells", async (t) => {
  const rand = seededRandom(34);
  await t.step("never above the exact bound, over cells of every size and place", () => {
    for (let i = 0; i < 20000; i++) {
      const lon = rand() * 360 - 180;
      const lat = rand() < 0.2 ? (rand() < 0.5 ? -1 : 1) * (80 + rand() * 10) : rand() * 180 - 90;
      const near = rand() < 0.5;
      const p = 1 + Math.floor(rand() * 8);
      const at = near
        ? [lon + (rand() - 0.5) * 2, Math.max(-90, Math.min(90, lat + (rand() - 0.5) * 2))]
        : [rand() * 360 - 180, rand() * 180 - 90];
      const box = geohashBounds(geohashEncode(at[0], at[1], p));
      const rough = roughDistanceToBoxKm(roughFrom({ lon, lat }), box);
      const exact = minDistanceToBoxKm(lon, lat, box);
      assert.ok(rough <= exact, `#${i}: rough ${rough} > exact ${exact}`);
    }
  });
  await t.step("within a few per cent of it for city-sized cells within 100 km", () => {
    for (let i = 0; i < 5000; i++) {
      const lon = rand() * 300 - 150;
      const lat = rand() * 120 - 60;
      const box = geohashBounds(
        geohashEncode(
          lon + (rand() - 0.5) * 1.5,
          lat + (rand() - 0.5) * 1.5,
          5 + Math.floor(rand() * 3),
        ),
      );
      const exact = minDistanceToBoxKm(lon, lat, box);
      const rough = roughDistanceToBoxKm(roughFrom({ lon, lat }), box);
      assert.ok(rough >= 0.97 * exact - 1e-3, `#${i}: rough ${rough} far below exact ${exact}`);
    }
  });
});
