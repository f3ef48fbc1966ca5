/** Contract of the text normalization and prefix search used to find tasks by words. */
import assert from "node:assert/strict";
import { MAX_WORD_LENGTH, normalizeText, queryWords, words } from "../../domain/validation/text.ts";
import { matchesTerms } from "../../domain/tasks/task.ts";

Deno.test("normalizeText ignores case and accents", async (t) => {
  await t.step("lower-cases and strips accents", () => {
    assert.equal(normalizeText("Café"), "cafe");
    assert.equal(normalizeText("Plomberie"), "plomberie");
    assert.equal(normalizeText("ÀÉÎÕÜ çà"), "aeiou ca");
  });
  await t.step("treats composed and decomposed input alike", () => {
    assert.equal(normalizeText("e\u0301te\u0301"), normalizeText("\u00e9t\u00e9"));
  });
  await t.step("folds letters that have no decomposition", () => {
    assert.equal(normalizeText("Straße ẞ"), "strasse ss");
    assert.equal(normalizeText("Æble Œuvre Øl Łódź Đorđe"), "aeble oeuvre ol lodz dorde");
  });
  await t.step("makes a Greek final sigma match its medial form", () => {
    assert.equal(normalizeText("ΟΔΟΣ"), normalizeText("οδοσ"));
  });
  await t.step("keeps the vowel signs of scripts that are written with marks", () => {
    assert.equal(normalizeText("नमस्ते"), "नमस्ते".normalize("NFD"));
  });
  await t.step("leaves plain ASCII lower case untouched", () => {
    assert.equal(normalizeText("fix 2 taps, quickly!"), "fix 2 taps, quickly!");
  });
});

Deno.test("words splits a text into distinct normalized words", async (t) => {
  await t.step("splits on anything that is not a letter or digit", () => {
    assert.deepEqual(words("Fix: 3D-printer_jam (urgent!)"), [
      "fix",
      "3d",
      "printer",
      "jam",
      "urgent",
    ]);
    assert.deepEqual(words("l'été\tau\nbord\u00a0de la mer🙂ok"), [
      "l",
      "ete",
      "au",
      "bord",
      "de",
      "la",
      "mer",
      "ok",
    ]);
  });
  await t.step("keeps the first appearance of each word, in order", () => {
    assert.deepEqual(words("Hello, world! HELLO héllo World"), ["hello", "world"]);
  });
  await t.step("returns nothing for empty or punctuation-only text", () => {
    assert.deepEqual(words(""), []);
    assert.deepEqual(words("  -- ,,, !! "), []);
  });
  await t.step("keeps non-Latin words whole", () => {
    assert.deepEqual(words("日本語 テスト"), ["日本語", "テスト"]);
    assert.equal(words("नमस्ते दुनिया").length, 2);
    assert.deepEqual(words("Москва, Ёлка"), ["москва", "елка"]);
  });
  await t.step("cuts words to 32 characters without splitting a surrogate pair", () => {
    assert.deepEqual(words("a".repeat(40)), ["a".repeat(MAX_WORD_LENGTH)]);
    const astral = "a".repeat(31) + "𝒜b";
    assert.deepEqual(words(astral), ["a".repeat(31)]);
  });
});

Deno.test("queryWords gives the normalized distinct words of a query", async (t) => {
  await t.step("dedupes across case and accents", () => {
    assert.deepEqual(queryWords("Café cafe CAFÉ plomb"), ["cafe", "plomb"]);
  });
  await t.step("is empty for a blank query", () => {
    assert.deepEqual(queryWords("   "), []);
  });
});

/** A query against texts as a task search runs it: query words, the texts' words, matchesTerms. */
const matchesSearch = (query: string, texts: string[]) =>
  matchesTerms(queryWords(query), texts.flatMap(words));

Deno.test("a search requires every query word to prefix some text word", async (t) => {
  const texts = ["Plomberie urgente", "Fuite d'eau sous l'évier, Paris 15e"];
  await t.step("matches word prefixes regardless of case and accents", () => {
    assert.ok(matchesSearch("plomb", texts));
    assert.ok(matchesSearch("EVIER", texts));
    assert.ok(matchesSearch("évi", ["evier"]));
    assert.ok(matchesSearch("cafe", ["Café"]));
  });
  await t.step("needs all query words, which may come from different texts", () => {
    assert.ok(matchesSearch("plomb paris", texts));
    assert.ok(!matchesSearch("plomb lyon", texts));
  });
  await t.step("does not match inside a word", () => {
    assert.ok(!matchesSearch("omberie", texts));
  });
  await t.step("matches everything when the query has no words", () => {
    assert.ok(matchesSearch("", texts));
    assert.ok(matchesSearch(" ?! ", []));
  });
  await t.step("matches nothing when there is no text but the query has words", () => {
    assert.ok(!matchesSearch("plomb", []));
  });
  await t.step("matches a word longer than 32 characters against itself", () => {
    const long = "anticonstitutionnellementquiestlong";
    assert.ok(matchesSearch(long, [`Le mot ${long}`]));
  });
});
