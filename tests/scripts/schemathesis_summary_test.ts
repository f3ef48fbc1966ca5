/**
 * `deno task schemathesis` reads its figures off the tool's closing summary: the lines it keeps and
 * the failures by check it counts, on a summary as Schemathesis 4.9 prints it.
 */
import assert from "node:assert/strict";
import { failuresOf, summaryOf } from "../../scripts/schemathesis_run.ts";

const output = `Schemathesis v4.9.5
 ❌  Coverage (in 2.74s)

     ❌ 1 failed

================================ SUMMARY ================================

API Operations:
  Selected: 1/68
  Tested: 1

Failures:
  ❌ API accepted schema-violating request: 1
  ❌ Undocumented HTTP status code: 12

Errors:
  🚫 Runtime Error: 1

Test cases:
  16 generated, 2 found 4 unique failures, 12 skipped

Seed: 1
`;

Deno.test("the summary starts at its heading; failures are counted by check", () => {
  const summary = summaryOf(output);
  assert.ok(summary.split("\n")[0].includes("SUMMARY"));
  assert.deepEqual(failuresOf(summary), [
    { check: "API accepted schema-violating request", count: 1 },
    { check: "Undocumented HTTP status code", count: 12 },
  ]);
});

Deno.test("a run without failures counts none", () => {
  assert.deepEqual(failuresOf("=== SUMMARY ===\n\nTest cases:\n  5 generated, 5 passed\n"), []);
});
