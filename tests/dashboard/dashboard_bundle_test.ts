import assert from "node:assert/strict";
import { bundleScript } from "../../routes/dashboard/script_bundle.ts";
import { generatedModule, renderAssetSources } from "../../scripts/dashboard_assets.ts";
import { setup } from "../helpers.ts";

Deno.test("the dashboard's script modules are served as one module", async (t) => {
  await t.step("app.js imports nothing but chart.js and exports nothing", async () => {
    await using svc = await setup();
    const script = await (await svc.request("/dashboard/app.js")).text();
    const statements = script.match(/^(?:import|export)\b.*$/gm) ?? [];
    assert.deepEqual(statements, [
      'import { usageChart, usageTotals } from "./chart.js";',
    ]);
  });

  await t.step("imports between parts go; exports become plain declarations", () => {
    const joined = bundleScript([
      { name: "a.js", source: "export const one = 1;\nexport function two() {}\n" },
      { name: "b.js", source: 'import { one, two } from "./a.js";\nconsole.log(one, two);\n' },
    ]);
    assert.equal(joined, "const one = 1;\nfunction two() {}\n\nconsole.log(one, two);\n");
  });

  await t.step("a name no part exports stops the start-up, not the browser", () => {
    const a = { name: "a.js", source: "export const one = 1;\n" };
    assert.throws(
      () => bundleScript([a, { name: "b.js", source: 'import { three } from "./a.js";\n' }]),
      /b\.js imports three, not in a\.js/,
    );
    assert.throws(
      () => bundleScript([{ name: "b.js", source: 'import { one } from "./c.js";\n' }]),
      /b\.js imports c\.js, which the dashboard bundle lacks/,
    );
    assert.throws(
      () => bundleScript([{ name: "d.js", source: "export default 1;\n" }]),
      /d\.js: the bundle cannot join "export default 1;"/,
    );
  });

  await t.step(
    "a part importing a later one (a circle, or the wrong order) stops the start-up",
    () => {
      const a = { name: "a.js", source: 'import { two } from "./b.js";\nexport const one = 1;\n' };
      const b = { name: "b.js", source: 'import { one } from "./a.js";\nexport const two = 2;\n' };
      assert.throws(
        () => bundleScript([a, b]),
        /a\.js imports b\.js, which the dashboard bundle joins after it/,
      );
    },
  );
});

Deno.test("asset_sources.ts holds exactly routes/dashboard/script/ and styles/ as they are on disk", async () => {
  const current = await Deno.readTextFile(generatedModule);
  assert.ok(
    current === await renderAssetSources(),
    "routes/dashboard/asset_sources.ts is stale: run `deno task dashboard:assets`",
  );
});
