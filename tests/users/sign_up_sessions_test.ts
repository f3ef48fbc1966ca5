import assert from "node:assert/strict";
import { findUserByEmail } from "../../kv/users/users.ts";
import { verifyPassword } from "../../domain/users/password.ts";
import { bearer, createKey, setup, signUp } from "../helpers.ts";

const PRIVATE_FIELDS = [
  "createdAt",
  "email",
  "firstName",
  "id",
  "lastName",
  "profilePic",
  "updatedAt",
];

Deno.test("POST /v1/users signs up and answers the private profile", async (t) => {
  await using svc = await setup();

  await t.step("201 with exactly the private profile fields, never the password", async () => {
    const res = await svc.request("/v1/users", {
      method: "POST",
      json: {
        email: "Ada@Example.com",
        password: "correct horse battery",
        firstName: " Ada ",
        lastName: "Lovelace",
        profilePic: "https://example.com/ada.png",
      },
    });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), PRIVATE_FIELDS);
    assert.match(body.id, /^[0-9a-f-]{36}$/);
    assert.equal(body.email, "Ada@Example.com");
    assert.equal(body.firstName, "Ada");
    assert.equal(body.lastName, "Lovelace");
    assert.equal(body.profilePic, "https://example.com/ada.png");
    assert.match(body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(body.updatedAt, body.createdAt);
    assert.equal(res.headers.get("Location"), `/v1/users/${body.id}`);
  });

  await t.step("optional lastName and profilePic are null when absent", async () => {
    const res = await svc.request("/api/v1/users", {
      method: "POST",
      json: { email: "bob@example.com", password: "12345678", firstName: "Bob" },
    });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.equal(body.lastName, null);
    assert.equal(body.profilePic, null);
  });

  await t.step("the password is stored as a PBKDF2-SHA-256 hash that verifies", async () => {
    const user = await findUserByEmail(svc.kv, "ada@example.com");
    assert.ok(user);
    assert.match(user.passwordHash, /^pbkdf2-sha256\$1000\$/);
    assert.doesNotMatch(user.passwordHash, /correct horse/);
    assert.equal(await verifyPassword("correct horse battery", user.passwordHash), true);
    assert.equal(await verifyPassword("correct horse batterx", user.passwordHash), false);
  });

  for (const email of ["ada@example.com", "ADA@EXAMPLE.COM", "aDa@example.Com"]) {
    await t.step(`a taken email in any case (${email}) answers 409 EMAIL_TAKEN`, async () => {
      const res = await svc.request("/v1/users", {
        method: "POST",
        json: { email, password: "another password", firstName: "Eve" },
      });
      assert.equal(res.status, 409);
      assert.equal((await res.json()).code, "EMAIL_TAKEN");
    });
  }

  const invalid: [string, Record<string, unknown>, string][] = [
    ["email missing", { password: "12345678", firstName: "A" }, "email"],
    ["email malformed", { email: "not-an-email", password: "12345678", firstName: "A" }, "email"],
    ["password of 7", { email: "p7@example.com", password: "1234567", firstName: "A" }, "password"],
    ["password of 129", {
      email: "p129@example.com",
      password: "x".repeat(129),
      firstName: "A",
    }, "password"],
    [
      "firstName empty",
      { email: "f0@example.com", password: "12345678", firstName: "  " },
      "firstName",
    ],
    ["firstName of 101", {
      email: "f101@example.com",
      password: "12345678",
      firstName: "x".repeat(101),
    }, "firstName"],
    ["profilePic over http", {
      email: "pic@example.com",
      password: "12345678",
      firstName: "A",
      profilePic: "http://example.com/a.png",
    }, "profilePic"],
    ["lastName of 101", {
      email: "l101@example.com",
      password: "12345678",
      firstName: "A",
      lastName: "x".repeat(101),
    }, "lastName"],
  ];
  for (const [what, json, path] of invalid) {
    await t.step(`${what} answers 400 VALIDATION_ERROR at ${path}`, async () => {
      const res = await svc.request("/v1/users", { method: "POST", json });
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.code, "VALIDATION_ERROR");
      assert.ok(
        body.errors.some((e: { path: string }) => e.path === path),
        JSON.stringify(body.errors),
      );
    });
  }

  await t.step("a password of exactly 8 and of 128 characters is accepted", async () => {
    for (
      const [email, password] of [["p8@example.com", "12345678"], [
        "p128@example.com",
        "y".repeat(128),
      ]]
    ) {
      const res = await svc.request("/v1/users", {
        method: "POST",
        json: { email, password, firstName: "A" },
      });
      await res.body?.cancel();
      assert.equal(res.status, 201);
    }
  });
});

Deno.test("concurrent sign-ups with one email, in different cases, create one account", async () => {
  await using svc = await setup();
  const emails = ["race@example.com", "RACE@example.com", "Race@Example.com", "race@EXAMPLE.com"];
  const responses = await Promise.all(emails.map((email) =>
    svc.request("/v1/users", {
      method: "POST",
      json: { email, password: "12345678", firstName: "R" },
    })
  ));
  const statuses = await Promise.all(responses.map(async (r) => {
    await r.body?.cancel();
    return r.status;
  }));
  assert.deepEqual(statuses.sort(), [201, 409, 409, 409]);
});

Deno.test("POST /v1/auth/token logs in with email and password", async (t) => {
  await using svc = await setup({ settings: { SESSION_TTL_HOURS: 2 } });
  const user = await signUp(svc, { email: "Grace@Example.com", password: "hopper-1906" });

  await t.step("200 {token, tokenType: Bearer, expiresAt} after SESSION_TTL_HOURS", async () => {
    const before = Date.now();
    const res = await svc.request("/v1/auth/token", {
      method: "POST",
      json: { email: "grace@example.com", password: "hopper-1906" },
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), ["expiresAt", "token", "tokenType"]);
    assert.equal(body.tokenType, "Bearer");
    assert.match(body.token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const ttl = Date.parse(body.expiresAt) - before;
    assert.ok(Math.abs(ttl - 2 * 3_600_000) < 5_000, `ttl ${ttl}`);
  });

  await t.step("the token is an HS256 JWT naming the user", () => {
    const [header, payload] = user.token.split(".").slice(0, 2).map((part) =>
      JSON.parse(atob(part.replaceAll("-", "+").replaceAll("_", "/")))
    );
    assert.equal(header.alg, "HS256");
    assert.equal(payload.sub, user.id);
    assert.equal(typeof payload.sid, "string");
  });

  await t.step("the email matches in any case", async () => {
    const res = await svc.request("/v1/auth/token", {
      method: "POST",
      json: { email: "GRACE@EXAMPLE.COM", password: "hopper-1906" },
    });
    await res.body?.cancel();
    assert.equal(res.status, 200);
  });

  await t.step("a wrong password answers 401 INVALID_CREDENTIALS", async () => {
    const res = await svc.request("/v1/auth/token", {
      method: "POST",
      json: { email: "grace@example.com", password: "hopper-1907" },
    });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "INVALID_CREDENTIALS");
  });

  await t.step("an unknown email answers the same 401 INVALID_CREDENTIALS", async () => {
    const res = await svc.request("/v1/auth/token", {
      method: "POST",
      json: { email: "nobody@example.com", password: "hopper-1906" },
    });
    assert.equal(res.status, 401);
    const body = await res.json();
    assert.equal(body.code, "INVALID_CREDENTIALS");
    assert.equal(body.detail, "The email or password is not correct");
  });

  await t.step("a missing password answers 400 VALIDATION_ERROR", async () => {
    const res = await svc.request("/v1/auth/token", {
      method: "POST",
      json: { email: "grace@example.com" },
    });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).code, "VALIDATION_ERROR");
  });
});

Deno.test("a session token is refused once it expires", async () => {
  let now = Date.parse("2030-01-01T00:00:00.000Z");
  await using svc = await setup({ settings: { SESSION_TTL_HOURS: 1 }, deps: { now: () => now } });
  const user = await signUp(svc);
  const me = () => svc.request("/v1/users/me", { headers: bearer(user.token) });

  const fresh = await me();
  await fresh.body?.cancel();
  assert.equal(fresh.status, 200, "valid while the clock says 2030, before its expiry");

  now += 3_600_000;
  const expired = await me();
  assert.equal(expired.status, 401);
  assert.equal((await expired.json()).code, "TOKEN_INVALID");
});

Deno.test("POST /v1/auth/logout ends the session", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const other = await svc.request("/v1/auth/token", {
    method: "POST",
    json: { email: user.email, password: user.password },
  });
  const otherToken = (await other.json()).token as string;

  await t.step("200 {message: Logged out}", async () => {
    const res = await svc.request("/v1/auth/logout", {
      method: "POST",
      headers: bearer(user.token),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { message: "Logged out" });
  });

  await t.step("the logged-out token then answers 401 TOKEN_INVALID", async () => {
    const res = await svc.request("/v1/users/me", { headers: bearer(user.token) });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "TOKEN_INVALID");
  });

  await t.step("another session of the same user still works", async () => {
    const res = await svc.request("/v1/users/me", { headers: bearer(otherToken) });
    await res.body?.cancel();
    assert.equal(res.status, 200);
  });

  await t.step("logging out with an API key answers 403 SESSION_REQUIRED", async () => {
    const key = await createKey(svc, otherToken);
    const res = await svc.request("/v1/auth/logout", {
      method: "POST",
      headers: { "X-API-Key": key.value },
    });
    assert.equal(res.status, 403);
    assert.equal((await res.json()).code, "SESSION_REQUIRED");
  });

  await t.step("logging out with no credential answers 401 TOKEN_MISSING", async () => {
    const res = await svc.request("/v1/auth/logout", { method: "POST" });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "TOKEN_MISSING");
  });
});

Deno.test("GET /v1/users/me answers the caller's private profile", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc, { firstName: "Me" });

  await t.step("with a session: exactly the private profile fields", async () => {
    const res = await svc.request("/v1/users/me", { headers: bearer(user.token) });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), [...PRIVATE_FIELDS, "rating"].sort());
    assert.deepEqual(body.rating, { average: null, count: 0 }, "with the rating (section 16)");
    assert.equal(body.id, user.id);
    assert.equal(body.email, user.email);
    assert.equal(body.firstName, "Me");
  });

  await t.step("with a key holding profile:read, under both prefixes", async () => {
    const key = await createKey(svc, user.token, { scopes: ["profile:read"] });
    for (const path of ["/api/v1/users/me", "/v1/users/me"]) {
      const res = await svc.request(path, { headers: { "X-API-Key": key.value } });
      assert.equal(res.status, 200, path);
      assert.equal((await res.json()).id, user.id);
    }
  });

  await t.step("with a key lacking profile:read: 403 SCOPE_INSUFFICIENT", async () => {
    const key = await createKey(svc, user.token, { scopes: ["tasks:read"] });
    const res = await svc.request("/v1/users/me", { headers: { "X-API-Key": key.value } });
    assert.equal(res.status, 403);
    const body = await res.json();
    assert.equal(body.code, "SCOPE_INSUFFICIENT");
    assert.equal(body.scope, "profile:read");
  });
});
