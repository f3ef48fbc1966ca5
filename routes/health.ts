/** GET /health: 200 while storage answers, 503 when it does not. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { health } from "../kv/keys.ts";
import type { AppEnv } from "./env.ts";

const Health = z.object({ status: z.enum(["ok", "unavailable"]) }).openapi("Health");

const route = createRoute({
  method: "get",
  path: "/health",
  tags: ["Service"],
  summary: "Liveness and storage check",
  responses: {
    200: { description: "Storage answers", content: { "application/json": { schema: Health } } },
    503: {
      description: "Storage does not answer",
      content: { "application/json": { schema: Health } },
    },
  },
});

const PROBE_TIMEOUT_MS = 2000;

export function registerHealth(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const probe = c.var.deps.kv.get(health.probe());
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), PROBE_TIMEOUT_MS);
    });
    try {
      await Promise.race([probe, timeout]);
      return c.json({ status: "ok" as const }, 200);
    } catch {
      return c.json({ status: "unavailable" as const }, 503);
    } finally {
      clearTimeout(timer);
    }
  });
}
