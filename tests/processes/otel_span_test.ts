/**
 * Issue 46 #5, "with Deno's built-in OpenTelemetry on, every span is named after the method
 * alone": the service runs as `deno task serve` with OTEL_DENO=true, exporting OTLP/JSON to a
 * real receiver in this test, and its server spans are named by route.
 */
import assert from "node:assert/strict";
import { bareEnv, stopMain, taskCommand, waitForListening } from "./main_process.ts";
import { until } from "../wait.ts";

interface OtlpSpan {
  name: string;
  kind: number;
  attributes?: { key: string; value: { stringValue?: string } }[];
}

const SERVER_KIND = 2;

Deno.test("OpenTelemetry spans were named after the method alone (issue 46 #5): by route now", async () => {
  const spans: OtlpSpan[] = [];
  // An OTLP/HTTP receiver: traces are collected, metrics and logs acknowledged.
  const receiver = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const body = await req.json();
      if (new URL(req.url).pathname === "/v1/traces") {
        for (const resource of body.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? []) spans.push(...scope.spans ?? []);
        }
      }
      return Response.json({});
    },
  );
  const cwd = await Deno.makeTempDir();
  const child = taskCommand(
    "serve",
    cwd,
    bareEnv({
      PORT: "0",
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.addr.port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_DENO_CONSOLE: "ignore",
    }),
  ).spawn();
  try {
    const { port, rest } = await waitForListening(child);
    const base = `http://127.0.0.1:${port}`;
    for (
      const path of [
        "/api/v1/tasks/7f6d2a3e-8b1c-4d5e-9f00-1a2b3c4d5e6f",
        "/v1/users/me",
        "/health",
      ]
    ) {
      await (await fetch(`${base}${path}`)).body?.cancel();
    }
    await (await fetch(`${base}/no/such/path`)).body?.cancel();
    // The exporter sends its batch at the latest when the process stops.
    const { status } = await stopMain(child, rest);
    assert.equal(status.code, 0);
    await until(() => spans.filter((s) => s.kind === SERVER_KIND).length >= 4, {
      what: "four server spans at the receiver",
    });
    const server = spans.filter((s) => s.kind === SERVER_KIND);
    const route = (s: OtlpSpan) =>
      s.attributes?.find((a) => a.key === "http.route")?.value.stringValue;
    assert.deepEqual(
      server.map((s) => [s.name, route(s)]).sort(),
      [
        ["GET /api/v1/tasks/:id", "/api/v1/tasks/:id"],
        ["GET /health", "/health"],
        ["GET /v1/users/me", "/v1/users/me"],
        // An unknown path keeps the method alone: a raw path is no route.
        ["GET", undefined],
      ].sort(),
    );
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // stopped already
    }
    await receiver.shutdown();
    await Deno.remove(cwd, { recursive: true });
  }
});
