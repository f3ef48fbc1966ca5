import assert from "node:assert/strict";
import { hashPassword, verifyPassword } from "../../domain/users/password.ts";
import { constantTimeEqual } from "../../domain/bytes.ts";

Deno.test("passwords are hashed with PBKDF2-SHA-256 and checked in constant time", async (t) => {
  const stored = await hashPassword("correct horse battery", 1000);

  await t.step("the stored form names the scheme, iterations, salt and hash", () => {
    assert.match(stored, /^pbkdf2-sha256\$1000\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
  });

  await t.step("the right password verifies, any other does not", async () => {
    assert.equal(await verifyPassword("correct horse battery", stored), true);
    assert.equal(await verifyPassword("correct horse batter", stored), false);
    assert.equal(await verifyPassword("Correct horse battery", stored), false);
    assert.equal(await verifyPassword("", stored), false);
  });

  await t.step("the same password gets a new salt each time", async () => {
    const again = await hashPassword("correct horse battery", 1000);
    assert.notEqual(again, stored);
    assert.equal(await verifyPassword("correct horse battery", again), true);
  });

  await t.step("the iteration count travels with the hash", async () => {
    const stronger = await hashPassword("pw-12345", 2000);
    assert.match(stronger, /^pbkdf2-sha256\$2000\$/);
    assert.equal(await verifyPassword("pw-12345", stronger), true);
  });

  await t.step("a malformed stored hash never verifies", async () => {
    for (
      const bad of ["", "plain", "md5$1$a$b", "pbkdf2-sha256$0$AAAA$AAAA", "pbkdf2-sha256$x$A$A"]
    ) {
      assert.equal(await verifyPassword("anything", bad), false, bad);
    }
  });

  await t.step("constantTimeEqual compares whole arrays, lengths included", () => {
    const a = new Uint8Array([1, 2, 3]);
    assert.equal(constantTimeEqual(a, new Uint8Array([1, 2, 3])), true);
    assert.equal(constantTimeEqual(a, new Uint8Array([1, 2, 4])), false);
    assert.equal(constantTimeEqual(a, new Uint8Array([1, 2])), false);
    assert.equal(constantTimeEqual(a, new Uint8Array([1, 2, 3, 0])), false);
    assert.equal(constantTimeEqual(new Uint8Array(), new Uint8Array()), true);
  });
});
