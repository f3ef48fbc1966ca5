/**
 * `deno task bench:cancel [--most=5000]`: what one cancellation writes, as a function of the task's accepted
 * helpers and pending applications up to the largest `maxPeople` (1,000): the size of the
 * cancellation's own atomic against Deno KV's limits (10 checks, 1,000 mutations, 800 KiB), the
 * atomics of the job that settles the applications, the entries written in all, and what one
 * atomic doing all of it would need, from the same run. Every account is subscribed to every event,
 * so every event is queued (the largest atomics); the service runs in process on a store file.
 */
import type { ApplicationRecord } from "../../domain/application.ts";
import { changeApplication, createApplication } from "../../kv/applications.ts";
import { startJobs } from "../../kv/jobs/start.ts";
import { webhooks } from "../../kv/keyspace.ts";
import { orderKey } from "../../kv/order_key.ts";
import { type AtomicSize, KV_LIMITS, limitGuard } from "../../kv/store/limits.ts";
import { createUser } from "../../kv/users/users.ts";
import { benchTaskBody } from "../datasets/http_seed.ts";
import { numberFlag } from "../lib/flags.ts";
import { loadAverage, markdownTable, writeResults } from "../lib/results.ts";
import { bearer, benchService, signUp } from "../lib/service.ts";

/** The pending applications of the last case: `--most=<n>`, the unbounded count's stand-in. */
const MOST = numberFlag("most", 5000);

/** [maxPeople, accepted helpers, pending applications] of each task cancelled. */
const CASES: [number, number, number][] = [
  [1, 0, 0],
  [1, 1, 10],
  [10, 10, 100],
  [100, 100, 1000],
  [1000, 1000, 0],
  [1000, 1000, 1000],
  [1, 0, MOST],
];

/** Atomics committed while recording, and the kind each was. */
interface Recorded {
  cancel: AtomicSize[];
  settle: AtomicSize[];
  other: AtomicSize[];
}

const first = (key: Deno.KvKey) => String(key[0]);
const keyId = (key: Deno.KvKey) =>
  JSON.stringify(key, (_, v) => typeof v === "bigint" ? `${v}n` : v);

async function main() {
  const dir = await Deno.makeTempDir();
  let recording: Recorded | null = null;
  const kv = limitGuard(await Deno.openKv(`${dir}/kv.sqlite3`), (size) => {
    if (!recording) return;
    const roots = new Set(size.written.map(first));
    if (roots.has("task_history") && roots.has("tasks")) recording.cancel.push(size);
    else if (roots.has("applications")) recording.settle.push(size);
    else recording.other.push(size);
  });
  await using svc = await benchService({
    kv,
    settings: { RATE_LIMIT_PER_HOUR: 1_000_000_000 },
  });
  const runner = startJobs({ kv, now: () => Date.now() });
  const everything = { events: ["*"], revision: "bench" };
  const rows: (string | number)[][] = [];
  const single: (string | number)[][] = [];
  let n = 0;
  for (const [maxPeople, helpers, pending] of CASES) {
    const owner = await signUp(svc);
    await kv.set(webhooks.subscription(owner.id), everything);
    const created = await svc.request("/api/v1/tasks", {
      method: "POST",
      headers: bearer(owner.token),
      json: { ...benchTaskBody(n), maxPeople },
    });
    const task = await created.json();
    // Applicants stored directly: signing up thousands through the API would hash as many passwords.
    for (let i = 0; i < helpers + pending; i++) {
      const at = Date.now();
      const iso = new Date(at).toISOString();
      const userId = crypto.randomUUID();
      await createUser(kv, {
        id: userId,
        email: `a${n++}-${userId}@example.com`,
        firstName: "Applicant",
        lastName: null,
        profilePic: null,
        passwordHash: "unused",
        createdAt: iso,
        updatedAt: iso,
        deletedAt: null,
      });
      await kv.set(webhooks.subscription(userId), everything);
      const id = crypto.randomUUID();
      const app: ApplicationRecord = {
        id,
        taskId: task.id,
        taskOwnerId: "",
        applicantId: userId,
        message: "I can do it, and I have done it many times before",
        price: 40,
        status: "pending",
        createdAt: iso,
        updatedAt: iso,
        orderKey: orderKey(at, id),
      };
      await createApplication(kv, app);
      if (i < helpers) {
        await changeApplication(kv, {
          applicationId: id,
          actorId: owner.id,
          to: "accepted",
          at: iso,
        });
      }
    }
    await runner.drain();
    recording = { cancel: [], settle: [], other: [] };
    const started = performance.now();
    const res = await svc.request(`/api/v1/tasks/${task.id}/cancel`, {
      method: "POST",
      headers: bearer(owner.token),
      json: { reason: "no_longer_needed", note: "The bench is done with it" },
    });
    if (res.status !== 200) throw new Error(`cancel: ${res.status} ${await res.text()}`);
    await res.body?.cancel();
    const answered = performance.now() - started;
    await runner.drain();
    const settled = performance.now() - started;
    const { cancel, settle, other } = recording;
    recording = null;
    if (cancel.length !== 1) throw new Error(`${cancel.length} cancellation atomics`);
    const [atomic] = cancel;
    const all = [...cancel, ...settle, ...other];
    const written = all.reduce((sum, a) => sum + a.mutations, 0);
    const applications = helpers + pending;
    const biggest = settle.reduce((max, a) => Math.max(max, a.mutations), 0);
    rows.push([
      maxPeople,
      helpers,
      pending,
      `${atomic.checks} / ${atomic.mutations} / ${(atomic.totalBytes / 1024).toFixed(1)}`,
      settle.length,
      biggest,
      written,
      applications ? (written / applications).toFixed(1) : "-",
      answered.toFixed(1),
      settled.toFixed(0),
    ]);
    // One atomic holding the cancellation and every settle, each key checked and written once:
    // what the job spares. Its bytes are the sum's (an over-estimate by the repeated keys).
    const parts = [atomic, ...settle];
    const one = {
      checks: new Set(parts.flatMap((a) => a.checked.map(keyId))).size,
      mutations: new Set(parts.flatMap((a) => a.written.map(keyId))).size,
      bytes: parts.reduce((sum, a) => sum + a.totalBytes, 0),
    };
    const fits = one.checks <= KV_LIMITS.checks && one.mutations <= KV_LIMITS.mutations &&
      one.bytes <= KV_LIMITS.totalBytes;
    single.push([
      maxPeople,
      helpers,
      pending,
      one.checks,
      one.mutations,
      (one.bytes / 1024).toFixed(1),
      fits ? "yes" : "no",
    ]);
  }
  await runner.stop();
  const table = markdownTable(
    [
      "maxPeople",
      "accepted",
      "pending",
      "cancel atomic: checks / mutations / KiB",
      "settle atomics",
      "largest settle (mutations)",
      "entries written in all",
      "entries per application",
      "answer ms",
      "settled ms",
    ],
    rows,
  );
  const alternative = markdownTable(
    ["maxPeople", "accepted", "pending", "checks", "mutations", "KiB", "fits the limits"],
    single,
  );
  const limits = `${KV_LIMITS.checks} checks, ${KV_LIMITS.mutations} mutations, ` +
    `${KV_LIMITS.totalBytes / 1024} KiB`;
  const body = [
    `The cancellation's own atomic, against the strictest backend's limits (${limits}):`,
    "",
    table,
    "",
    "`entries written in all`: every mutation of every atomic committed from the request until " +
    "the jobs had run (the cancellation, one atomic per application settled, the jobs' own " +
    "records and the events' fan-out). `answer ms`: the POST; `settled ms`: until no job was due.",
    "",
    "The same work in one atomic (the cancellation and every settle together, each key checked " +
    "and written once; bytes summed), as a cancellation that wrote every application itself " +
    "would need:",
    "",
    alternative,
  ].join("\n");
  console.log(body);
  console.log(`\nload average: ${loadAverage()}`);
  const path = await writeResults({
    name: "cancel",
    command: "deno task bench:cancel",
    comparedWith: `Deno KV's atomic limits (${limits}) and one atomic doing the whole cancellation`,
    body,
  });
  console.log(`wrote ${path}`);
  await Deno.remove(dir, { recursive: true });
}

if (import.meta.main) await main();
