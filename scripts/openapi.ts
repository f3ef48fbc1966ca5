/**
 * Writes the service's OpenAPI document to a file (default `test-output/openapi.json`), built
 * from the app exactly as GET /openapi.json serves it, for linters and client generators.
 */
import { parseSettings } from "../domain/settings.ts";
import { createApp } from "../routes/app.ts";
import { createDeps } from "../routes/router/deps.ts";

/** The document GET /openapi.json serves, from an app on a throwaway store. */
export async function serviceDocument(): Promise<Record<string, unknown>> {
  const kv = await Deno.openKv(":memory:");
  try {
    // The document depends on no setting: any valid ones build it.
    const settings = parseSettings({
      JWT_SECRET: "openapi-document-only".padEnd(32, "-"),
      LOG_LEVEL: "silent",
      // The store this document is built on, so nothing reads where the service's would be.
      KV_PATH: ":memory:",
    });
    const app = createApp(await createDeps(kv, settings));
    const res = await app.request("/openapi.json");
    if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
    return await res.json();
  } finally {
    kv.close();
  }
}

if (import.meta.main) {
  const target = Deno.args[0] ?? "test-output/openapi.json";
  const dir = target.includes("/") ? target.slice(0, target.lastIndexOf("/")) : ".";
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(target, JSON.stringify(await serviceDocument(), null, 2) + "\n");
  console.log(`wrote ${target}`);
}
