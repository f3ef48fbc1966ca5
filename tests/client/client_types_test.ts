/** The committed client types are what `deno task client` generates from the document now. */
import assert from "node:assert/strict";
import { CLIENT_TYPES, clientTypes } from "../../scripts/client.ts";

Deno.test("client/schema.d.ts is what `deno task client` generates from the served document", async () => {
  const committed = (await Deno.readTextFile(CLIENT_TYPES)).split("\n");
  const fresh = (await clientTypes()).split("\n");
  const first = fresh.findIndex((line, i) => line !== committed[i]);
  const at = first < 0 && fresh.length !== committed.length ? fresh.length : first;
  assert.equal(
    at,
    -1,
    `client/schema.d.ts differs from the document at line ${at + 1}: run \`deno task client\`\n` +
      `committed: ${committed[at]}\ngenerated: ${fresh[at]}`,
  );
});
