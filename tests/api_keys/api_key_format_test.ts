import assert from "node:assert/strict";
import { generateKeyValue, isWellFormedKey, keyDigest } from "../../domain/api_key.ts";
import { crc32 } from "../../domain/bytes.ts";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";

/** Changes one hex digit of the key body, keeping the CRC tail: a typo. */
function mistype(value: string, at = 20): string {
  const digit = value[at] === "0" ? "1" : "0";
  return value.slice(0, at) + digit + value.slice(at + 1);
}

Deno.test("API key values: svc_ + 64 lowercase hex ending in a CRC-32 of the first 56", async (t) => {
  await t.step("a generated key has the format and a matching CRC-32 tail", () => {
    for (let i = 0; i < 100; i++) {
      const value = generateKeyValue();
      assert.match(value, /^svc_[0-9a-f]{64}$/);
      const body = value.slice(4, 60);
      assert.equal(value.slice(60), crc32(body).toString(16).padStart(8, "0"));
      assert.equal(isWellFormedKey(value), true);
    }
  });

  await t.step("CRC-32 is the IEEE one (known check value)", () => {
    assert.equal(crc32("123456789"), 0xcbf43926);
  });

  await t.step("two generated keys differ", () => {
    assert.notEqual(generateKeyValue(), generateKeyValue());
  });

  await t.step("a typo, a swapped tail, upper case or a wrong length fail the check", () => {
    const value = generateKeyValue();
    assert.equal(isWellFormedKey(mistype(value)), false);
    assert.equal(isWellFormedKey(mistype(value, 62)), false);
    assert.equal(isWellFormedKey(value.toUpperCase().replace("SVC_", "svc_")), false);
    assert.equal(isWellFormedKey(value.slice(0, -1)), false);
    assert.equal(isWellFormedKey(value + "0"), false);
    assert.equal(isWellFormedKey("key_" + value.slice(4)), false);
  });
});

Deno.test("a mistyped or made-up key answers 401 API_KEY_INVALID", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const key = await createKey(svc, user.token, { scopes: ["profile:read"] });

  const cases: [string, string][] = [
    ["one digit mistyped", mistype(key.value)],
    ["made up with a valid shape", `svc_${"a".repeat(64)}`],
    ["too short", "svc_0123abcd"],
    ["well-formed but never issued", generateKeyValue()],
  ];
  for (const [what, value] of cases) {
    for (const headers of [apiKey(value), bearer(value)]) {
      const header = Object.keys(headers)[0];
      await t.step(`${what}, in ${header}`, async () => {
        const res = await svc.request("/v1/users/me", { headers });
        assert.equal(res.status, 401);
        const body = await res.json();
        assert.equal(body.code, "API_KEY_INVALID");
        assert.ok(!JSON.stringify(body).includes(value), "the key is not echoed");
      });
    }
  }

  await t.step("the real key still works", async () => {
    const res = await svc.request("/v1/users/me", { headers: apiKey(key.value) });
    await res.body?.cancel();
    assert.equal(res.status, 200);
  });
});

Deno.test("only a SHA-256 digest of a key is stored, never its value", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const first = await createKey(svc, user.token);
  const regenerated = await svc.request(`/api/v1/keys/${first.id}/regenerate`, {
    method: "POST",
    headers: bearer(user.token),
  });
  const second = (await regenerated.json()).key as string;
  const third = await createKey(svc, user.token, { ipWhitelist: ["10.0.0.0/8"] });
  const used = await svc.request("/v1/users/me", { headers: apiKey(third.value) });
  await used.body?.cancel();
  await svc.deps.lastUsed.flush();

  const values = [first.value, second, third.value];
  const secrets = values.flatMap((v) => [v, v.slice(4), v.slice(4, 60)]);
  let digestsSeen = 0;
  const digests = await Promise.all(values.map(keyDigest));
  for await (const entry of svc.kv.list({ prefix: [] })) {
    const stored = JSON.stringify(
      [entry.key, entry.value],
      (_, v) => typeof v === "bigint" ? v.toString() : v, // counters are Deno.KvU64
    );
    for (const secret of secrets) {
      assert.ok(!stored.includes(secret), `a key value is stored under ${entry.key.join("/")}`);
    }
    if (digests.some((d) => stored.includes(d))) digestsSeen++;
  }
  assert.ok(digestsSeen > 0, "the digests are what is stored");
  assert.equal(digests[0], await keyDigest(first.value));
  assert.match(digests[0], /^[0-9a-f]{64}$/);
});
