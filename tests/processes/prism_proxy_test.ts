/**
 * The contract checked by a third-party validator against the live service: Stoplight Prism in
 * proxy mode before `main.ts`, sent the typed walkthrough and every request of
 * tests/openapi/contract_test.ts (every operation), tests/openapi/openapi_rules_test.ts (valid bodies,
 * schema-generated invalid ones) and tests/openapi/openapi_rules_examples_test.ts (the suite's invalid
 * examples). Prism's verdict on each exchange (`sl-violations`) must show no answer that breaks
 * the document, no request the document forbids that the service accepted, and no 400 for a rule
 * the document does not state, beyond the rules it states in words.
 */
import assert from "node:assert/strict";
import { bareEnv, denoCommand, root, stopMain, waitForListening } from "./main_process.ts";
import { startPrism } from "./prism.ts";

// deno-lint-ignore no-explicit-any
type Schema = any;

interface Violation {
  location: string[];
  severity: string;
  code?: string;
  message: string;
}

interface Exchange {
  request: string;
  status: number;
  code?: string;
  errors?: { path: string; message: string }[];
  violations: Violation[];
}

/**
 * 400s for rules the document states in words only (docs/openapi.md), by the service's message;
 * `query`: for a query parameter only (an unknown body member breaks additionalProperties).
 */
const STATED_IN_WORDS: { rule: string; path: RegExp; message: RegExp; query?: true }[] = [
  {
    rule: "at most 2 decimals",
    path: /^(budget|price)$/,
    message: /^must have at most 2 decimals$/,
  },
  { rule: "expiresAt in the future", path: /^expiresAt$/, message: /must be in the future|365/ },
  { rule: "a webhook to a public address", path: /^url$/, message: /public address/ },
  { rule: "bbox minLat <= maxLat", path: /^bbox$/, message: /^minLat must not be above maxLat/ },
  {
    rule: "coordinates in the named country",
    path: /^location\.coordinates$/,
    message: /coordinates are \[longitude, latitude\]/,
  },
  // OpenAPI has no keyword for "no other query parameters"; the document says it in words.
  {
    rule: "no unknown query parameter",
    path: /./,
    message: /is not a known parameter/,
    query: true,
  },
];

/**
 * The document as Prism routes it: each versioned path under each of its servers. Prism matches
 * an answer's media type by its suffix only (`application/geo+json` matches `application/json`),
 * so where an answer has both, each Prism is given one of them and sent the requests that ask
 * for it.
 */
function flattened(
  doc: Record<string, unknown>,
  media: "application/json" | "application/geo+json",
) {
  const other = media === "application/json" ? "application/geo+json" : "application/json";
  const servers = doc.servers as { url: string }[];
  const paths: Record<string, unknown> = {};
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    const { servers: own, ...operations } = item;
    const text = JSON.stringify(operations);
    const single = JSON.parse(text) as Record<string, { responses?: Record<string, Schema> }>;
    for (const operation of Object.values(single)) {
      for (const response of Object.values(operation.responses ?? {})) {
        if (response.content?.[media] && response.content?.[other]) delete response.content[other];
      }
    }
    // A path's own servers replace the document's; "/" is the service root.
    for (const server of (own as { url: string }[] | undefined) ?? servers) {
      paths[`${server.url.replace(/\/$/, "")}${path}`] = single;
    }
  }
  const { servers: _servers, ...rest } = doc;
  return { ...rest, paths };
}

/**
 * Forwards every request to Prism (`geoJson` for requests that accept GeoJSON) and keeps its
 * verdict on each exchange.
 */
function recorder(json: string, geoJson: string) {
  const exchanges: Exchange[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const target = req.headers.get("Accept")?.includes("application/geo+json") ? geoJson : json;
    // An empty body is sent as none: Prism forwards a chunked empty DELETE body in a form the
    // service's HTTP server refuses with a bare 400 (curl's own chunked DELETE is answered).
    const sent = new Uint8Array(await req.arrayBuffer());
    const headers = new Headers(req.headers);
    headers.delete("transfer-encoding");
    const res = await fetch(`${target}${url.pathname}${url.search}`, {
      method: req.method,
      headers,
      body: sent.length > 0 ? sent : undefined,
      redirect: "manual",
    });
    const body = await res.arrayBuffer();
    const exchange: Exchange = {
      request: `${req.method} ${url.pathname}${url.search}`.slice(0, 300),
      status: res.status,
      violations: JSON.parse(res.headers.get("sl-violations") ?? "[]"),
    };
    if (res.headers.get("Content-Type")?.startsWith("application/problem+json")) {
      const problem = JSON.parse(new TextDecoder().decode(body));
      exchange.code = problem.code;
      exchange.errors = problem.errors;
    }
    exchanges.push(exchange);
    const answer = new Headers(res.headers);
    answer.delete("sl-violations");
    return new Response(res.status === 304 ? null : body, { status: res.status, headers: answer });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    exchanges,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** What each exchange shows against the document; empty when Prism and the service agree. */
function disagreements(exchanges: Exchange[]): string[] {
  const found: string[] = [];
  for (const x of exchanges) {
    const requestErrors = x.violations.filter((v) =>
      v.location[0] === "request" && v.severity === "Error"
    );
    const unrouted = x.violations.some((v) => /route not found|no path matched/i.test(v.message));
    if (unrouted && x.status !== 404 && x.status !== 405) {
      found.push(`answers a path the document does not list: ${x.request} → ${x.status}`);
    }
    const responseViolations = x.violations.filter((v) => v.location[0] === "response");
    for (const v of responseViolations) {
      found.push(`answer breaks the document: ${x.request} → ${x.status}: ${v.message}`);
    }
    if (x.status < 400 && requestErrors.length > 0) {
      found.push(
        `accepted what the document forbids: ${x.request} → ${x.status}: ` +
          requestErrors.map((v) => v.message).join("; "),
      );
    }
    const refusedByRule = x.status === 400 &&
      ["VALIDATION_ERROR", "UNKNOWN_PARAMETER", "INVALID_JSON"].includes(x.code ?? "");
    if (refusedByRule && requestErrors.length === 0) {
      const unstated = (x.errors ?? [{ path: "", message: "" }]).filter((e) =>
        !STATED_IN_WORDS.some((r) =>
          r.path.test(e.path) && r.message.test(e.message) && (!r.query || x.request.includes("?"))
        )
      );
      for (const e of unstated) {
        found.push(
          `a rule the document does not state: ${x.request} → 400 ${e.path}: ${e.message}`,
        );
      }
    }
  }
  return found;
}

/**
 * Test files whose requests are replayed through the proxy: every operation answering (contract)
 * and every rule broken (openapi_rules, openapi_rules_examples). They use only
 * `setup().request`, so they run unchanged.
 */
const SUITE_FILES = [
  "openapi/contract_test.ts",
  "openapi/openapi_rules_test.ts",
  "openapi/openapi_rules_examples_test.ts",
];

/** The document's operation an exchange called: static segments before parameters. */
function operationOf(doc: Record<string, Schema>, request: string): string | undefined {
  const [method, target] = request.split(" ");
  const path = target.split("?")[0].replace(/^\/(api\/)?v1(?=\/)/, "");
  const candidates = Object.entries(doc.paths as Record<string, Schema>)
    .filter(([, item]) => item[method.toLowerCase()])
    .map(([template]) => template)
    .filter((template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path))
    .sort((a, b) => a.split("{").length - b.split("{").length);
  return candidates[0] && `${method} ${candidates[0]}`;
}

/** The service as `deno task serve` runs it, on a throwaway store, reaching no other host. */
async function startService(cwd: string) {
  const child = denoCommand(
    [
      "run",
      `--config=${root}deno.json`,
      `--preload=${root}tests/without_kv_queues.ts`,
      // Webhook deliveries to the tests' public addresses are refused by Deno, never sent.
      "--allow-net=0.0.0.0,127.0.0.1,localhost",
      "--allow-env",
      "--allow-read",
      `${root}main.ts`,
    ],
    cwd,
    bareEnv({
      PORT: "0",
      KV_PATH: ":memory:",
      PASSWORD_HASH_ITERATIONS: "1000",
      PASSWORD_HASHES_PER_HOUR: "1000000",
      // As tests/openapi/openapi_rules_fixtures.ts's RELAXED settings.
      RATE_LIMIT_PER_HOUR: "1000000",
      ANON_RATE_LIMIT_PER_HOUR: "1000000",
      KEY_CREATION_PER_MINUTE: "1000000",
    }),
  ).spawn();
  const { port, rest } = await waitForListening(child);
  return { child, rest, url: `http://127.0.0.1:${port}` };
}

Deno.test({
  name: "Prism in proxy mode finds the live service and its document in agreement",
  // Prism's install is a download on the first run; its start takes seconds.
  sanitizeResources: false,
  async fn(t) {
    const cwd = await Deno.makeTempDir({ prefix: "prism-run-" });
    const service = await startService(cwd);
    try {
      const doc = await (await fetch(`${service.url}/openapi.json`)).json();
      const prisms = [];
      for (const media of ["application/json", "application/geo+json"] as const) {
        const docPath = `${cwd}/openapi-${media.replace("/", "-")}.json`;
        await Deno.writeTextFile(docPath, JSON.stringify(flattened(doc, media)));
        prisms.push(await startPrism(docPath, service.url));
      }
      await using json = prisms[0];
      await using geoJson = prisms[1];
      await using record = recorder(json.url, geoJson.url);

      await t.step("the typed README walkthrough, through the proxy", async () => {
        const run = await denoCommand(
          [
            "run",
            `--config=${root}deno.json`,
            "--allow-net=127.0.0.1",
            `${root}client/examples/walkthrough.ts`,
            record.url,
          ],
          cwd,
          bareEnv(),
        ).output();
        assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
      });

      // Their requests go to the live service through the proxy (TEST_SERVICE_URL, ../helpers.ts).
      for (const file of SUITE_FILES) {
        await t.step(`tests/${file}, every request through the proxy`, async () => {
          const run = await denoCommand(
            // Type-checked by this run already.
            [
              "test",
              "--allow-all",
              "--no-check",
              `--config=${root}deno.json`,
              `${root}tests/${file}`,
            ],
            cwd,
            bareEnv({ TEST_SERVICE_URL: record.url }),
          ).output();
          const out = new TextDecoder().decode(run.stdout);
          assert.equal(run.code, 0, out.slice(-3000) + new TextDecoder().decode(run.stderr));
        });
      }

      await t.step(
        "calls a client may get wrong: lat/lng, maxpeople, swapped coordinates",
        async () => {
          const post = (path: string, body: unknown, token?: string) =>
            fetch(`${record.url}/api/v1${path}`, {
              method: "POST",
              headers: {
                "Content-Type": "application/json",
                ...(token ? { Authorization: `Bearer ${token}` } : {}),
              },
              body: JSON.stringify(body),
            });
          const email = "prism@example.com";
          const password = "correct horse battery";
          await (await post("/users", { email, password, firstName: "P" })).body?.cancel();
          const { token } = await (await post("/auth/token", { email, password })).json();
          const paris = { type: "city", name: "Paris", countryCode: "FR" };
          const task = {
            title: "Move a piano",
            description: "Third floor",
            budget: 120,
            currency: "EUR",
            requirement: "Strong back",
          };
          const answers = [
            await fetch(`${record.url}/api/v1/tasks/explore?lat=48.86&lng=2.35&radius=10`),
            await post("/tasks", {
              ...task,
              location: { ...paris, coordinates: [2.35, 48.86] },
              maxpeople: 3,
            }, token),
            await post(
              "/tasks",
              { ...task, location: { ...paris, coordinates: [48.8566, 2.3522] } },
              token,
            ),
          ];
          for (const res of answers) {
            await res.body?.cancel();
            assert.equal(res.status, 400);
          }
        },
      );

      await t.step("Prism reports nothing the service and the document disagree on", () => {
        const { exchanges } = record;
        const called = new Set(exchanges.map((x) => operationOf(doc, x.request)));
        const operations = Object.entries(doc.paths as Record<string, Schema>).flatMap((
          [path, item],
        ) =>
          ["get", "post", "put", "patch", "delete"].filter((m) => item[m]).map((m) =>
            `${m.toUpperCase()} ${path}`
          )
        );
        assert.deepEqual(operations.filter((op) => !called.has(op)), [], "operations not called");
        const found = disagreements(exchanges);
        // Floors that show the replays ran, well below what they send now.
        assert.ok(exchanges.length > 400, `only ${exchanges.length} exchanges`);
        const refused = exchanges.filter((x) => x.status === 400).length;
        assert.ok(refused > 200, `only ${refused} invalid requests`);
        assert.deepEqual(found.slice(0, 40), [], `${found.length} disagreements`);
      });
    } finally {
      const { status, stderr } = await stopMain(service.child, service.rest);
      assert.equal(status.code, 0, stderr);
      await Deno.remove(cwd, { recursive: true });
    }
  },
});
