/**
 * Shows that GET /tasks/me/created streams in bounded memory: the live heap while streaming
 * stays flat however many tasks the caller has.
 * Run: deno run -A --v8-flags=--expose-gc bench/stream_memory.ts 40000
 */
import { newTask, TaskCreate } from "../domain/tasks/task.ts";
import { orderKey } from "../kv/order_key.ts";
import { createTask } from "../kv/tasks/tasks.ts";
import { bearer, setup, signUp } from "../tests/helpers.ts";
import { taskBody } from "../tests/tasks/task_fixtures.ts";

const gc = (globalThis as unknown as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --v8-flags=--expose-gc");
const count = Number(Deno.args[0] ?? 20_000);
await using svc = await setup();
const user = await signUp(svc);
const input = TaskCreate.parse(taskBody({ description: "x".repeat(500) }));
for (let i = 0; i < count; i++) {
  const id = crypto.randomUUID();
  const at = Date.now();
  const ids = { id, userId: user.id, orderKey: orderKey(at, id) };
  await createTask(svc.kv, newTask(input, ids, new Date(at).toISOString()));
}
gc();
const baseline = Deno.memoryUsage().heapUsed;
let bytes = 0;
let chunks = 0;
let peak = 0;
const res = await svc.request("/api/v1/tasks/me/created", { headers: bearer(user.token) });
for await (const chunk of res.body!) {
  bytes += chunk.length;
  if (++chunks % 10 === 0) {
    gc();
    peak = Math.max(peak, Deno.memoryUsage().heapUsed - baseline);
  }
}
console.log(
  `${count} tasks: ${(bytes / 1e6).toFixed(1)} MB in ${chunks} chunks; ` +
    `peak live heap above baseline ${(peak / 1e6).toFixed(2)} MB`,
);
