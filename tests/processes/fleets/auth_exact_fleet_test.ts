/**
 * "Revokes the old key immediately", on the default start: `deno task start` with 2 and 4 workers
 * on one store, bursts of requests on fresh connections (so the kernel spreads them over every
 * worker) while a key changes. No request that starts after the change has answered may succeed
 * with what the change removed, whichever worker it reaches.
 */
import assert from "node:assert/strict";
import type { ApiKeyRecord } from "../../../domain/api_key.ts";
import { updateApiKey } from "../../../kv/api_keys/api_keys.ts";
import { call, fleetSignUp, startService } from "../fleet.ts";
import { taskBody } from "../../tasks/task_fixtures.ts";

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** Bursts per kind of change and worker count; raise it to search wider. */
const ROUNDS = Number(Deno.env.get("AUTH_EXACT_ROUNDS") ?? "2");

type Kind = "regenerate" | "revoke" | "expiry" | "whitelist" | "scopes";

interface Endpoint {
  method: string;
  path: string;
  json?: unknown;
}

/** What a key may call before the change, spread over every read shape and a write. */
function endpoints(kind: Kind, taskId: string): Endpoint[] {
  const scoped: Endpoint[] = [
    { method: "GET", path: "/v1/users/me" }, // one get
    { method: "GET", path: "/api/v1/tasks?limit=5" }, // a listing read with list
    { method: "GET", path: "/api/v1/tasks/me/created" }, // a streamed listing
    { method: "HEAD", path: "/api/v1/tasks/me/created" }, // a handler that reads nothing
    { method: "POST", path: "/api/v1/tasks", json: taskBody({ title: "Written by the key" }) },
  ];
  // A public endpoint still answers a key that lost a scope: only a refused key must fail it.
  if (kind === "scopes") return scoped;
  return [...scoped, { method: "GET", path: `/api/v1/tasks/${taskId}` }];
}

/** What every request that starts after the change must answer. */
const REFUSAL: Record<Kind, { status: number; code: string }> = {
  regenerate: { status: 401, code: "API_KEY_INVALID" },
  revoke: { status: 401, code: "API_KEY_INVALID" },
  expiry: { status: 401, code: "API_KEY_INVALID" },
  whitelist: { status: 401, code: "IP_NOT_ALLOWED" },
  scopes: { status: 403, code: "SCOPE_INSUFFICIENT" },
};

const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

interface Answer {
  startedAt: number;
  endpoint: Endpoint;
  status: number;
  code?: string;
}

/** One request on a fresh connection; `startedAt` is taken before it is sent. */
async function send(base: string, key: string, endpoint: Endpoint): Promise<Answer> {
  const startedAt = performance.now();
  const headers: Record<string, string> = { "X-API-Key": key, Connection: "close" };
  if (endpoint.json !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(`${base}${endpoint.path}`, {
    method: endpoint.method,
    headers,
    body: endpoint.json === undefined ? undefined : JSON.stringify(endpoint.json),
  });
  const text = await res.text();
  let code: string | undefined;
  if (res.status >= 400 && text) code = JSON.parse(text).code;
  return { startedAt, endpoint, status: res.status, code };
}

/** A count that can be waited on: resolves `until(n)` once it reaches n. */
class Counter {
  value = 0;
  #waiters: { n: number; resolve: () => void }[] = [];
  add() {
    this.value++;
    this.#waiters = this.#waiters.filter((w) => w.n > this.value || (w.resolve(), false));
  }
  until(n: number): Promise<void> {
    if (this.value >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }
}

interface Account {
  base: string;
  cwd: string;
  token: string;
  userId: string;
  taskId: string;
}

/**
 * Changes a key in the store by the service's own write of a key change (record, account version,
 * change marker and the key's guard), which every change through the API also takes.
 */
async function changeInStore(
  account: Account,
  keyId: string,
  change: (key: ApiKeyRecord) => ApiKeyRecord,
) {
  using kv = await Deno.openKv(`${account.cwd}/data/marketplace.sqlite3`);
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      const changed = await updateApiKey(kv, { userId: account.userId, keyId }, change);
      assert.ok(changed, "the key is live");
      return;
    } catch (error) {
      if (!/database is locked/.test((error as Error).message)) throw error;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error("could not change the key in the store");
}

/** Makes the change of `kind` and resolves once its answer (or its commit) is in. */
async function change(account: Account, kind: Kind, keyId: string) {
  const { base, token } = account;
  const url = `${base}/api/v1/keys/${keyId}`;
  switch (kind) {
    case "regenerate": {
      const res = await call(`${url}/regenerate`, { method: "POST", headers: bearer(token) });
      assert.equal(res.status, 200);
      return;
    }
    case "revoke": {
      const res = await call(url, { method: "DELETE", headers: bearer(token) });
      assert.equal(res.status, 200);
      return;
    }
    case "whitelist": {
      const res = await call(url, {
        method: "PATCH",
        headers: bearer(token),
        json: { ipWhitelist: ["10.1.2.3"] },
      });
      assert.equal(res.status, 200);
      return;
    }
    // The API changes neither a key's expiry nor its scopes after creation: the store is, the
    // way a change through the service writes it (record, account version and change marker).
    case "expiry":
      return await changeInStore(account, keyId, (k) => ({
        ...k,
        expiresAt: new Date(Date.now() - 1_000).toISOString(),
      }));
    case "scopes":
      return await changeInStore(account, keyId, (k) => ({ ...k, scopes: ["webhooks:read"] }));
  }
}

/**
 * One burst of random shape: `clients` loops on fresh connections; after a random number of
 * successes the key changes; the burst goes on until a random number of requests have started
 * after the change's answer. Returns every answer and when the change answered.
 */
async function burst(account: Account, kind: Kind, workers: number) {
  const created = await call(`${account.base}/api/v1/keys`, {
    method: "POST",
    headers: bearer(account.token),
    json: {
      name: `${kind} burst`,
      scopes: ["tasks:read", "tasks:write", "profile:read"],
      ipWhitelist: ["127.0.0.1", "10.1.2.3"],
      expiresInDays: 30,
    },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { id: keyId, key } = created.body as { id: string; key: string };
  const mix = endpoints(kind, account.taskId);
  const clients = randomInt(2, 8);
  const successesBefore = randomInt(2 * workers, 12 * workers);
  const startedAfter = randomInt(10 * workers, 40 * workers);

  const answers: Answer[] = [];
  const successes = new Counter();
  const late = new Counter();
  let changedAt = Infinity;
  let done = false;
  const loops = Array.from({ length: clients }, async () => {
    while (!done) {
      const answer = await send(account.base, key, mix[randomInt(0, mix.length - 1)]);
      answers.push(answer);
      if (answer.status < 300) successes.add();
      if (answer.startedAt > changedAt) late.add();
    }
  });
  await successes.until(successesBefore);
  await change(account, kind, keyId);
  changedAt = performance.now();
  await late.until(startedAfter);
  done = true;
  await Promise.all(loops);
  // Out of the account's 10 active keys (regenerated and narrowed keys stay active).
  const url = `${account.base}/api/v1/keys/${keyId}`;
  await call(url, { method: "DELETE", headers: bearer(account.token) });
  return { answers, changedAt, shape: { clients, successesBefore, startedAfter } };
}

async function setUp(base: string, cwd: string, email: string): Promise<Account> {
  const token = await fleetSignUp(base, email);
  const me = await call(`${base}/v1/users/me`, { headers: bearer(token) });
  const task = await call(`${base}/api/v1/tasks`, {
    method: "POST",
    headers: bearer(token),
    json: taskBody(),
  });
  assert.equal(task.status, 201);
  return { base, cwd, token, userId: me.body.id, taskId: task.body.id };
}

for (const workers of [2, 4]) {
  Deno.test(
    `no request started after a key change succeeds with what it removed (${workers} workers)`,
    async (t) => {
      // Budgets out of the way: refused keys draw on the address's, and every burst makes a key.
      await using service = await startService(workers, {
        RATE_LIMIT_PER_HOUR: "1000000",
        ANON_RATE_LIMIT_PER_HOUR: "1000000",
        KEY_CREATION_PER_MINUTE: "1000",
      });
      const account = await setUp(service.base, service.cwd, `exact-${workers}@example.com`);
      for (const kind of Object.keys(REFUSAL) as Kind[]) {
        await t.step(`${kind}: zero successes after the answer, on every worker`, async () => {
          for (let round = 0; round < ROUNDS; round++) {
            const { answers, changedAt, shape } = await burst(account, kind, workers);
            const after = answers.filter((a) => a.startedAt > changedAt);
            const lateSuccesses = after.filter((a) => a.status < 300);
            assert.deepEqual(
              lateSuccesses.map((a) => `${a.endpoint.method} ${a.endpoint.path} ${a.status}`),
              [],
              `${lateSuccesses.length} of ${after.length} requests started after the ${kind} ` +
                `succeeded (burst ${JSON.stringify(shape)})`,
            );
            // Refused as the contract says, never by accident (a 5xx, a 429).
            const refusal = REFUSAL[kind];
            for (const a of after) {
              assert.equal(
                a.status,
                refusal.status,
                `${a.endpoint.method} ${a.endpoint.path} ${a.code}`,
              );
              if (a.endpoint.method !== "HEAD") assert.equal(a.code, refusal.code);
            }
            assert.ok(answers.some((a) => a.startedAt < changedAt && a.status < 300));
          }
        });
      }
    },
  );
}
