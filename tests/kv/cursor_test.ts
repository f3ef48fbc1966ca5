import assert from "node:assert/strict";
import { encodeBase64Url, encodeTextBase64Url } from "../../domain/base64.ts";
import { AppError } from "../../domain/errors.ts";
import { decodeCursor, encodeCursor, isUlid, readNewestFirst } from "../../kv/cursor.ts";
import { openTestKv } from "../helpers.ts";

async function rejects(promise: Promise<unknown>) {
  await assert.rejects(promise, (e) => e instanceof AppError && e.code === "INVALID_CURSOR");
}

Deno.test("cursors are opaque and bound to their query", async (t) => {
  const position = "01J0000000000000000000000A";

  await t.step("a cursor reads back to its position with the same filters", async () => {
    const cursor = await encodeCursor(position, { list: "tasks", search: "cafe", a: 1 });
    assert.match(cursor, /^[A-Za-z0-9_-]+$/, "URL-safe");
    assert.equal(await decodeCursor(cursor, { a: 1, search: "cafe", list: "tasks" }), position);
  });

  await t.step("absent filters and undefined ones are the same query", async () => {
    const cursor = await encodeCursor(position, { list: "tasks" });
    assert.equal(await decodeCursor(cursor, { list: "tasks", search: undefined }), position);
  });

  await t.step("other filters make it INVALID_CURSOR", async () => {
    const cursor = await encodeCursor(position, { list: "tasks", search: "cafe" });
    await rejects(decodeCursor(cursor, { list: "tasks", search: "bar" }));
    await rejects(decodeCursor(cursor, { list: "tasks" }));
    await rejects(decodeCursor(cursor, { list: "users", search: "cafe" }));
  });

  await t.step("garbage, empty and oversized cursors are INVALID_CURSOR", async () => {
    for (const bad of ["", "!!", "bm90IGpzb24", "e30", "x".repeat(600)]) {
      await rejects(decodeCursor(bad, {}));
    }
  });

  await t.step("a position failing its check is INVALID_CURSOR", async () => {
    const cursor = await encodeCursor("not-a-ulid", {});
    await rejects(decodeCursor(cursor, {}, isUlid));
  });
});

Deno.test("readNewestFirst pages an index newest first without repeats", async () => {
  await using kv = await openTestKv();
  const keys = ["A", "B", "C", "D", "E"];
  for (const k of keys) await kv.set(["idx", "owner", k], k);
  await kv.set(["idx", "other", "Z"], "Z");
  const seen: string[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await readNewestFirst<string>(kv, { prefix: ["idx", "owner"], limit: 2, before });
    seen.push(...page.entries.map((e) => e.value));
    if (!page.next) break;
    before = page.next;
  }
  assert.deepEqual(seen, ["E", "D", "C", "B", "A"]);
});

Deno.test("a text's base64url is that of its UTF-8 bytes, ASCII or not", () => {
  const texts = [
    "",
    "a",
    "ab",
    "abc",
    '{"p":"01J0000000000000000000000A","f":"x-_"}',
    "\x7f~?>",
    "é€😀",
  ];
  for (const text of [...texts, ...texts.map((t) => t.repeat(37))]) {
    assert.equal(encodeTextBase64Url(text), encodeBase64Url(new TextEncoder().encode(text)), text);
  }
});
