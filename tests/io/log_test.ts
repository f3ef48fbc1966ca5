/**
 * The logger's lines (io/log.ts): one JSON object each, time, level and message first, then
 * the fields as given; a field named like the head replaces it, as a spread would.
 */
import assert from "node:assert/strict";
import { createLogger } from "../../io/log.ts";

function logged(log: (logger: ReturnType<typeof createLogger>) => void): string[] {
  const lines: string[] = [];
  log(createLogger("debug", (line) => lines.push(line)));
  return lines;
}

Deno.test("a line is the head and the fields, in order, undefined fields left out", () => {
  const [line] = logged((log) =>
    log.info('say "hi"', { status: 200, userId: undefined, path: "/a\nb", nested: { a: [1] } })
  );
  const parsed = JSON.parse(line);
  assert.deepEqual(Object.keys(parsed), ["time", "level", "msg", "status", "path", "nested"]);
  assert.equal(parsed.level, "info");
  assert.equal(parsed.msg, 'say "hi"');
  assert.deepEqual(parsed.nested, { a: [1] });
  assert.ok(!Number.isNaN(Date.parse(parsed.time)));
});

Deno.test("a line without fields, or with fields named like the head, is one object", () => {
  const [bare, named] = logged((log) => {
    log.warn("bare");
    log.error("named", { msg: "replaced", level: "custom", extra: true });
  });
  assert.deepEqual(Object.keys(JSON.parse(bare)), ["time", "level", "msg"]);
  const parsed = JSON.parse(named);
  assert.equal(parsed.msg, "replaced");
  assert.equal(parsed.level, "custom");
  assert.equal(named.match(/"msg"/g)?.length, 1, "no key twice");
});

Deno.test("lines below the level are not written", () => {
  const lines: string[] = [];
  const log = createLogger("warn", (line) => lines.push(line));
  log.info("dropped", { a: 1 });
  log.warn("kept");
  assert.equal(lines.length, 1);
});
