/**
 * A document's search words, packed into one string: a query word matches where it starts a
 * stored word, never inside one nor across two, as domain's `matchesTerms` says of the words.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import { matchesTerms, type TaskRecord } from "../../../domain/tasks/task.ts";
import { queryWords, words } from "../../../domain/validation/text.ts";
import { type PackedDoc, packedWords } from "../../../kv/explore/index/card.ts";
import { packedHasWords, packWords, unpackWords } from "../../../kv/tasks/packed_words.ts";
import { exploreNearest } from "../../../kv/explore/nearest/nearest_page.ts";
import type { NearestPage, NearestPosition } from "../../../kv/explore/nearest/page_bounds.ts";
import { explore } from "../../../kv/keyspace.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";
import { allPages, generateTasks, reference, writeTask } from "../explore_fixtures.ts";

const stored = packWords(words("Plomberie: garden work, Straße"));

Deno.test("a document's packed words match as the words do", async (t) => {
  await t.step("rule: a query word that starts a stored word matches", () => {
    for (const query of ["plomb", "plomberie", "garden", "wor", "strasse", "str"]) {
      assert.ok(packedHasWords(stored, queryWords(query)), query);
    }
  });

  await t.step("rule: a query word found only inside a stored word does not match", () => {
    for (const query of ["mber", "lomberie", "arden", "ork", "asse"]) {
      assert.ok(!packedHasWords(stored, queryWords(query)), query);
    }
  });

  await t.step("rule: nothing matches across the join of two words", () => {
    // Joined without a separator, "plomberiegardenwork" would hold both.
    for (const query of ["riegarden", "denwork", "gardenwork"]) {
      assert.ok(!packedHasWords(stored, queryWords(query)), query);
    }
  });

  await t.step("rule: every query word must match; none matches every document", () => {
    assert.ok(packedHasWords(stored, queryWords("gard plomb")));
    assert.ok(!packedHasWords(stored, queryWords("gard bike")));
    assert.ok(packedHasWords(stored, []));
    assert.ok(packedHasWords(packWords([]), []));
    assert.ok(!packedHasWords(packWords([]), ["a"]));
  });

  await t.step("rule: packing keeps the words, in their order", () => {
    for (const text of ["", "!!!", "Plomberie: garden work", "Ὀδός ΟΔΟΣ 東京 ٣ café\u00a0bar\tx"]) {
      assert.deepEqual(unpackWords(packWords(words(text))), words(text), text);
    }
  });

  await t.step("rule: on any texts and queries the packed check is matchesTerms", () => {
    const rnd = seededRandom(43);
    // Letters, marks and digits of several scripts, and separators of every kind words splits on.
    const pool = [
      "a",
      "b",
      "é",
      "ß",
      "σ",
      "ς",
      "東",
      "ि",
      "٣",
      "1",
      " ",
      "\u00a0",
      "\u3000",
      "-",
      "_",
      ".",
    ];
    const text = (n: number) =>
      Array.from({ length: n }, () => pool[Math.floor(rnd() * pool.length)]).join("");
    for (let i = 0; i < 3000; i++) {
      const terms = words(text(1 + Math.floor(rnd() * 40)));
      const query = queryWords(text(1 + Math.floor(rnd() * 6)));
      assert.equal(
        packedHasWords(packWords(terms), query),
        matchesTerms(query, terms),
        [
          JSON.stringify(terms),
          JSON.stringify(query),
        ].join(" ? "),
      );
    }
  });
});

Deno.test("explore's pages check the packed words of the documents they read", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const titles = ["Plomberie du garage", "Garden work", "Fix the bike", "Repair plumbing"];
  const tasks: TaskRecord[] = generateTasks(43, 400).map((task, i) => {
    const published = { ...task, status: "published" as const };
    return i % 10 === 0
      ? { ...published, title: titles[(i / 10) % 4], description: "" }
      : published;
  });
  for (const task of tasks) await writeTask(kv, null, task);

  await t.step("rule: a document stores its search words as one string", async () => {
    let docs = 0;
    for (const payment of ["Paid", "Pro-bono"] as const) {
      for await (const entry of kv.list<PackedDoc>({ prefix: explore.allPrefix(payment) })) {
        assert.equal(typeof packedWords(entry.value), "string", String(entry.key));
        docs++;
      }
    }
    assert.equal(docs, tasks.length);
  });

  await t.step("rule: newest first and nearest first answer as the reference", async () => {
    const placed = tasks.find((task) => task.location.type === "city")!;
    const [lon, lat] = placed.location.coordinates;
    const queries = {
      plomb: true,
      mber: false,
      denwork: false,
      "garden wo": true,
      "repair plu": true,
    };
    for (const [query, found] of Object.entries(queries)) {
      const filters: ExploreFilters = { search: queryWords(query) };
      const want = reference(tasks, filters);
      assert.equal(want.length > 0, found, query);
      const got = await allPages(kv, { filters, limit: 7 });
      assert.deepEqual(got.items, want, query);
      const near: ExploreFilters = { ...filters, geo: { lon, lat, radiusKm: 20_000 } };
      const nearest: string[] = [];
      let after: NearestPosition | null = null;
      for (let page = 0; page < 50 && (page === 0 || after); page++) {
        const value: NearestPage = await exploreNearest(kv, { filters: near, limit: 9, after });
        nearest.push(...value.items.map((item) => item.id));
        after = value.next;
      }
      assert.deepEqual(
        nearest.sort(),
        reference(tasks, near).map((item) => item.id).sort(),
        `nearest ${query}`,
      );
    }
  });
});
