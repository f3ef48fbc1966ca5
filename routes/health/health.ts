/**
 * GET /health: 200 while storage answers and takes writes, 503 when it does not answer or is out
 * of space. Checked for real, at most once a second per instance (kv/health_probe.ts).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { HealthProbe } from "../../kv/health_probe.ts";
import type { AppEnv, Deps } from "../router/env.ts";

const Health = z.object({
  status: z.enum(["ok", "read_only", "unavailable"]).openapi({
    description: "`read_only`: the store answers reads but is out of space for writes",
  }),
}).openapi("Health");

const route = createRoute({
  method: "get",
  path: "/health",
  tags: ["Service"],
  summary: "Liveness and storage check",
  description: "The storage check behind the answer is at most a second old.",
  responses: {
    200: { description: "Storage answers", content: { "application/json": { schema: Health } } },
    503: {
      description: "Storage does not answer, or takes no writes",
      content: { "application/json": { schema: Health } },
    },
  },
});

export function registerHealth(app: OpenAPIHono<AppEnv>) {
  // One probe per app (so per instance), made on the first request, which brings the deps.
  let probe: { deps: Deps; probe: HealthProbe } | null = null;
  app.openapi(route, async (c) => {
    const deps = c.get("deps");
    if (probe?.deps !== deps) probe = { deps, probe: new HealthProbe(deps.kv, () => deps.now()) };
    const status = await probe.probe.status();
    return status === "ok" ? c.json({ status }, 200) : c.json({ status }, 503);
  });
}
