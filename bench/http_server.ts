/**
 * The floors bench/http.ts compares the service against, each a bare Hono app on Deno.serve
 * with no middleware, run as its own process:
 *   floor-get  GET /tasks/:id   one kv.get of the task (kv/tasks.ts getTask), the record as JSON
 *   floor-post POST /tasks      the JSON body, then one atomic of the task and its indexes
 *                               (kv/tasks.ts createTask, the service's own create path)
 * Usage: PORT=<port> deno run ... bench/http_server.ts floor-get|floor-post <kv file> <user id>
 */
import { Hono } from "hono";
import { newTask, type TaskCreate, toTaskCreated } from "../domain/task.ts";
import { orderKey } from "../kv/order_key.ts";
import { createTask, getTask } from "../kv/tasks.ts";

const [mode, path, userId] = Deno.args;
const port = Number(Deno.env.get("PORT"));
const kv = await Deno.openKv(path);
const app = new Hono();

if (mode === "floor-get") {
  app.get("/tasks/:id", async (c) => {
    const task = await getTask(kv, c.req.param("id"));
    return task ? c.json(task) : c.notFound();
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
  console.error(`unknown mode ${mode}: floor-get or floor-post`);
  Deno.exit(2);
}

Deno.serve({ port, hostname: "127.0.0.1", onListen() {} }, app.fetch);
