/**
 * `deno task bench:messages [--samples=15] [--large=1000]`: what conversations cost where every KV
 * call is a network round trip (bench/lib/latency_app.ts, as bench:deploy uses: 0 and 25 ms a
 * call), through the real app of a live instance, beside `GET /tasks/:id` measured in the same
 * run; the store a 200-character message adds; and the conversations page at 10 and `--large`
 * conversations per account.
 */
import { benchSettings } from "../lib/service.ts";
import { encodedKeyBytes, encodedValueBytes } from "../../kv/store/limits.ts";
import { benchTaskBody } from "../datasets/http_seed.ts";
import { numberFlag as flag } from "../lib/flags.ts";
import { latencyApp, TripSamples } from "../lib/latency_app.ts";
import { loadAverage, markdownTable, writeResults } from "../lib/results.ts";

const SAMPLES = flag("samples", 15);
const LARGE = flag("large", 1000);
const DELAYS = [0, 25];
const OWNERS = 20;
const BODY = "x".repeat(200);
const STORE_MESSAGES = 100;
/** The key spaces a message itself writes; everything else it adds is its event's. */
const OWN = new Set([
  "messages",
  "conversations",
  "conversations_by_user",
  "rate_slots",
  "rate_slots_due",
]);

const settings = benchSettings({
  RATE_LIMIT_PER_HOUR: 1_000_000_000,
  KEY_CREATION_PER_MINUTE: 1_000_000,
  MESSAGES_PER_MINUTE: 1_000_000,
  IDLE_AFTER_SECONDS: 3600,
  WEBHOOK_ALLOW_PRIVATE: "true",
});

async function main() {
  await using instance = await latencyApp(settings);
  const { raw, slow, background, send } = instance;

  interface Account {
    id: string;
    session: HeadersInit;
    key: HeadersInit;
  }

  let accounts = 0;
  async function account(): Promise<Account> {
    const credentials = {
      email: `m${accounts++}@example.com`,
      password: "messages bench password",
    };
    const user = await send("/v1/users", {
      method: "POST",
      json: { ...credentials, firstName: `Person ${accounts}` },
    });
    const { token } = await send("/v1/auth/token", { method: "POST", json: credentials });
    const session = { Authorization: `Bearer ${token}` };
    const { key } = await send("/api/v1/keys", {
      method: "POST",
      headers: session,
      json: {
        name: "bench",
        scopes: [
          "tasks:read",
          "tasks:write",
          "applications:write",
          "messages:read",
          "messages:write",
        ],
        expiresInDays: 30,
      },
    });
    return { id: user.id, session, key: { "X-API-Key": key } };
  }

  let tasks = 0;
  async function newTask(owner: Account): Promise<string> {
    return (await send("/api/v1/tasks", {
      method: "POST",
      headers: owner.key,
      json: benchTaskBody(tasks++),
    })).id;
  }

  async function apply(applicant: Account, taskId: string): Promise<string> {
    return (await send(`/api/v1/tasks/${taskId}/applications`, {
      method: "POST",
      headers: applicant.key,
      json: { message: "I can do it" },
    })).id;
  }

  const post = (who: Account, applicationId: string, body = BODY) =>
    send(`/api/v1/applications/${applicationId}/messages`, {
      method: "POST",
      headers: who.key,
      json: { body },
    });

  console.log(`seeding ${OWNERS} owners, accounts with 10 and ${LARGE} conversations…`);
  const owners: Account[] = [];
  for (let i = 0; i < OWNERS; i++) owners.push(await account());
  const small = await account();
  const large = await account();
  const ownerTasks: string[] = [];
  for (let i = 0; i < LARGE; i++) ownerTasks.push(await newTask(owners[i % OWNERS]));
  const smallApps: string[] = [];
  const largeApps: string[] = [];
  for (let i = 0; i < LARGE; i++) {
    largeApps.push(await apply(large, ownerTasks[i]));
    if (i < 10) smallApps.push(await apply(small, ownerTasks[i]));
  }
  // Every conversation of the large account has messages, so its page reads the moved entries.
  for (let i = 0; i < LARGE; i++) await post(owners[i % OWNERS], largeApps[i], `hello ${i}`);
  for (let i = 0; i < 10; i++) await post(owners[i % OWNERS], smallApps[i], `hello ${i}`);
  const talk = largeApps[0];
  for (let i = 0; i < 60; i++) await post(i % 2 ? large : owners[0], talk, `line ${i}`);
  await send(`/api/v1/applications/${talk}/messages?limit=1`, {
    headers: large.key,
  });

  /** A fresh conversation whose parties this instance has not seen: the first post's cost. */
  async function unseenConversation(): Promise<string> {
    return await apply(large, await newTask(owners[1]));
  }

  interface Kind {
    name: string;
    /** Outside the trace, before each sample; answers what the sample needs. */
    before?: () => Promise<string | undefined>;
    run: (prepared: string | undefined) => Promise<unknown>;
  }

  const kinds: Kind[] = [
    {
      name: "GET /tasks/:id, API key (the reference)",
      run: () => send(`/api/v1/tasks/${ownerTasks[0]}`, { headers: owners[0].key }),
    },
    { name: "POST /applications/:id/messages, 200 characters", run: () => post(large, talk) },
    {
      name: "POST /applications/:id/messages, first on this instance",
      before: unseenConversation,
      run: (id) => post(large, id!),
    },
    {
      name: "GET /applications/:id/messages (a thread page of 20)",
      run: () => send(`/api/v1/applications/${talk}/messages`, { headers: large.key }),
    },
    {
      name: "GET /conversations, 10 conversations",
      run: () => send("/api/v1/conversations", { headers: small.key }),
    },
    {
      name: `GET /conversations, ${LARGE} conversations`,
      run: () => send("/api/v1/conversations", { headers: large.key }),
    },
    {
      name: "PUT /applications/:id/read",
      before: async () => (await post(owners[0], talk, "read me")).id,
      run: (upTo) =>
        send(`/api/v1/applications/${talk}/read`, {
          method: "PUT",
          headers: large.key,
          json: { upTo },
        }),
    },
  ];

  const results = new TripSamples(DELAYS);
  background.start();
  for (const delay of DELAYS) {
    await instance.settle(delay);
    for (const kind of kinds) {
      for (let i = 0; i < SAMPLES + 2; i++) {
        const prepared = await kind.before?.();
        background.touch();
        const started = performance.now();
        const { trips } = await slow.traced(() => kind.run(prepared));
        const ms = performance.now() - started;
        if (i >= 2) results.record(kind.name, delay, { trips, ms });
      }
    }
  }

  /** Every entry of the store by whose it is: how many, and their encoded key and value bytes. */
  async function storeSize() {
    const size = { own: { entries: 0, bytes: 0 }, event: { entries: 0, bytes: 0 } };
    for await (const entry of raw.list({ prefix: [] })) {
      const part = OWN.has(String(entry.key[0])) ? size.own : size.event;
      part.entries++;
      part.bytes += encodedKeyBytes(entry.key) + encodedValueBytes(entry.value);
    }
    return size;
  }

  /** What `STORE_MESSAGES` posts of 200 characters add, a message; with or without a listener. */
  async function storePerMessage(listening: boolean) {
    const applicationId = await unseenConversation();
    if (listening) {
      await send("/v1/webhooks", {
        method: "POST",
        headers: owners[1].session,
        json: { url: "http://127.0.0.1:9/unreachable", events: ["message.created"] },
      });
    }
    await background.stop();
    const before = await storeSize();
    for (let i = 0; i < STORE_MESSAGES; i++) await post(large, applicationId);
    const after = await storeSize();
    background.start();
    const each = (part: "own" | "event") => ({
      entries: (after[part].entries - before[part].entries) / STORE_MESSAGES,
      bytes: (after[part].bytes - before[part].bytes) / STORE_MESSAGES,
    });
    return { own: each("own"), event: each("event") };
  }
  slow.delayMs = 0;
  const quiet = await storePerMessage(false);
  const heard = await storePerMessage(true);

  const fmt = (n: number, digits = 1) => n.toFixed(digits);
  const p50 = (name: string, delay: number) => results.p50(name, delay);
  const table = results.table();
  const smallPage = "GET /conversations, 10 conversations";
  const largePage = `GET /conversations, ${LARGE} conversations`;
  const flat = markdownTable(
    ["delay", "10 conversations, ms p50", `${LARGE}, ms p50`, "ratio"],
    DELAYS.map((d) => [
      `${d} ms`,
      fmt(p50(smallPage, d), 2),
      fmt(p50(largePage, d), 2),
      fmt(p50(largePage, d) / p50(smallPage, d), 2),
    ]),
  );
  const storeRow = (name: string, size: typeof quiet) => [
    name,
    fmt(size.own.entries, 2),
    fmt(size.own.bytes, 0),
    fmt(size.event.entries, 2),
    fmt(size.event.bytes, 0),
  ];
  const store = markdownTable(
    [
      "recipient",
      "the message's entries",
      "the message's bytes",
      "its event's entries (expiring)",
      "its event's bytes",
    ],
    [
      storeRow("no webhook endpoint", quiet),
      storeRow("an endpoint selecting message.created, before its jobs run", heard),
    ],
  );
  const body = [
    `${OWNERS} task creators; one applicant with 10 conversations, one with ${LARGE}, each with a`,
    `message; a thread of 60 messages. 2 warm-up requests then ${SAMPLES} samples a kind, through the`,
    "app of a live instance with its background jobs. Round trips are sequential waits",
    "(kv/store/latency.ts): calls in flight together count once, a list once per batch fetched.",
    "",
    table,
    "",
    "The conversations page by the account's number of conversations:",
    "",
    flat,
    "",
    `The store one message of 200 characters adds (the mean of ${STORE_MESSAGES} posts in one`,
    "conversation, the whole store listed before and after; bytes as kv/store/limits.ts encodes them).",
    "The message's own: its record, its conversation's state and listing entries, the sender's limit",
    "slots. Its event's: the recipient's live log entry (kept 24 hours for Last-Event-ID) and, with a",
    "listening endpoint, the webhook body and fan-out job; every event type costs the same there.",
    "",
    store,
    "",
    `Load average after the run: ${loadAverage()}.`,
  ].join("\n");
  console.log(`\n${table}\n\n${flat}\n\n${store}\n`);
  const path = await writeResults({
    name: "messages",
    command: `deno task bench:messages --samples=${SAMPLES} --large=${LARGE}`,
    comparedWith:
      "GET /tasks/:id with an API key in the same run (bench:deploy's reference: 1 round " +
      "trip), and issue 41's targets (posting 2 round trips at the median, a thread page or the " +
      "conversations page 1; at most 4 entries and 1 KiB a message; the page within 1.5x from 10 " +
      `to ${LARGE} conversations)`,
    body,
  });
  console.log(`written to ${path}`);
}

if (import.meta.main) await main();
