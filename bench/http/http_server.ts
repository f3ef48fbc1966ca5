/**
 * The floors bench/http/http.ts compares the service against, each a bare Hono app on Deno.serve
 * with no middleware, run as its own process:
 *   floor-get  GET /tasks/:id   one kv.get of the task (kv/tasks/tasks.ts getTask), as JSON
 *   floor-get-headers           the same, answered with the headers the contract puts on every
 *                               keyed response (request id, CORS, five rate-limit headers,
 *                               JSON charset) with fixed rate-limit values: what they cost alone
 *   floor-post POST /tasks      the JSON body, then one atomic of the task and its indexes
 *                               (kv/tasks/tasks.ts createTask, the service's own create path)
 * Usage: PORT=<port> deno run ... bench/http/http_server.ts floor-get|floor-post <kv file>
 *   <user id>
 */
import { Hono } from "hono";
import { monotonicFactory } from "ulid";
import { CORS_EXPOSE_HEADERS } from "../../routes/http/cors.ts";
import { newTask, type TaskCreate } from "../../domain/tasks/task.ts";
import { toTaskCreated } from "../../domain/tasks/task_view.ts";
import { orderKey } from "../../kv/order_key.ts";
import { createTask, getTask } from "../../kv/tasks/tasks.ts";

const [mode, path, userId] = Deno.args;
const port = Number(Deno.env.get("PORT"));
const kv = await Deno.openKv(path);
const app = new Hono();

if (mode === "floor-get") {
  app.get("/tasks/:id", async (c) => {
    const task = await getTask(kv, c.req.param("id"));
    return task ? c.json(task) : c.notFound();
  });
} else if (mode === "floor-get-headers") {
  const newUlid = monotonicFactory();
  const expose = CORS_EXPOSE_HEADERS.join(",");
  app.get("/tasks/:id", async (c) => {
    const task = await getTask(kv, c.req.param("id"));
    if (!task) return c.notFound();
    c.header("X-Request-Id", newUlid());
    c.header("Access-Control-Allow-Origin", "*");
    c.header("Access-Control-Expose-Headers", expose);
    c.header("RateLimit-Policy", '"default";q=1000000000;w=3600');
    c.header("RateLimit", '"default";r=999999999;t=3600');
    c.header("X-RateLimit-Limit", "1000000000");
    c.header("X-RateLimit-Remaining", "999999999");
    c.header("X-RateLimit-Reset", String(Math.ceil(Date.now() / 1000) + 3600));
    return c.body(JSON.stringify(task), 200, {
      "Content-Type": "application/json; charset=utf-8",
    });
  });
} else if (mode === "floor-post") {
  app.post("/tasks", async (c) => {
    // No validation: the floor is the storage and HTTP work alone.
    const input = await c.req.json() as TaskCreate;
    const now = Date.now();
    const id = crypto.randomUUID();
    const task = newTask(
      input,
      { id, userId, orderKey: orderKey(now, id) },
      new Date(now).toISOString(),
    );
    await createTask(kv, task);
    return c.json(toTaskCreated(task), 201);
  });
} else {
  console.error(`unknown mode ${mode}: floor-get, floor-get-headers or floor-post`);
  Deno.exit(2);
}

Deno.serve({ port, hostname: "127.0.0.1", onListen() {} }, app.fetch);
