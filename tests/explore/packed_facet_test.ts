/**
 * A listed card's facet read in place (`packedFacet`) against the facet its unpacked item gives
 * (`facetOf`), for each way a card stores its location.
 */
import assert from "node:assert/strict";
import type { Location } from "../../domain/tasks/task.ts";
import { type FacetFields, facetOf, readFacet } from "../../kv/explore/index/facet.ts";
import { type ExploreCard, packCard, packDoc, unpackCard } from "../../kv/explore/index/card.ts";
import { packedFacet } from "../../kv/explore/index/packed_facet.ts";

function card(budget: number, location: Location): ExploreCard {
  return {
    item: {
      id: "00000000-0000-4000-8000-000000000001",
      title: "Paint a fence",
      budget,
      currency: "EUR",
      status: "published",
      createdAt: "2026-11-27T08:00:00.000Z",
      acceptedCount: 0,
      spotsLeft: 2,
      location,
    },
    userId: "00000000-0000-4000-8000-000000000002",
  };
}

const FIELDS: (keyof FacetFields)[] = [
  "lon",
  "lat",
  "payment",
  "type",
  "radiusKm",
  "countryCode",
  "name",
];

const fields = (f: FacetFields) => Object.fromEntries(FIELDS.map((k) => [k, f[k]]));

const LOCATIONS: [string, number, Location][] = [
  ["a paid city task", 40, {
    coordinates: [2.3522, 48.8566],
    type: "city",
    name: "Paris",
    countryCode: "FR",
  }],
  ["a pro-bono radius task with an accented name", 0, {
    coordinates: [4.8357, 45.764],
    type: "radius",
    name: "  Lyon Saint-Exupéry ",
    countryCode: "FR",
    radiusKm: 25,
  }],
  ["a world task without a country", 5, {
    coordinates: [0, 0],
    type: "world",
    name: "ÆRØ Straße",
  }],
];

Deno.test("a packed card's facet read in place is the facet of its unpacked item", async (t) => {
  for (const [what, budget, location] of LOCATIONS) {
    await t.step(what, () => {
      const c = card(budget, location);
      const expected = fields(readFacet(facetOf(unpackCard(packCard(c)).item)));
      assert.deepEqual(fields(packedFacet(packCard(c))), expected);
      assert.deepEqual(fields(packedFacet(packDoc({ ...c, terms: ["paint"] }))), expected);
    });
  }
  await t.step("a location kept unpacked (a member the tuple does not hold)", () => {
    const location = { ...LOCATIONS[1][2], note: "kept as stored" } as Location;
    const packed = packCard(card(0, location));
    assert.ok(!Array.isArray(packed[8]), "the location stays an object");
    assert.deepEqual(
      fields(packedFacet(packed)),
      fields(readFacet(facetOf({ budget: 0, location }))),
    );
  });
});
