/**
 * Settings > Task alerts in headless Chromium, against the real server with its job runner: the
 * scope picker offers alerts:read and alerts:write; add an alert (a problem shown beside its
 * field), see a matching task in its matches, disable it, delete it. Screenshots land in
 * test-output/dashboard/.
 */
import assert from "node:assert/strict";
import { deliveryPolicy } from "../../domain/settings.ts";
import { testSettings } from "../settings_fixtures.ts";
import { startJobs } from "../../kv/jobs/start.ts";
import { createApp } from "../../routes/app.ts";
import { createDeps } from "../../routes/router/deps.ts";
import { accessibilityViolations } from "../browser/axe.ts";
import { launchChromium } from "../browser/chromium.ts";
import { shot, signUpOver, stepsUntilBroken, watchedPage } from "../browser/dashboard_fixtures.ts";
import { taskBody } from "../tasks/task_fixtures.ts";

async function startServer() {
  const kv = await Deno.openKv(":memory:");
  const settings = testSettings();
  const deps = await createDeps(kv, settings);
  const jobs = startJobs({ kv, now: deps.now, webhooks: deliveryPolicy(settings) });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    createApp(deps).fetch,
  );
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    jobs,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await deps.lastUsed.flush();
      await jobs.stop();
      kv.close();
    },
  };
}

Deno.test("the dashboard manages task alerts and shows their matches", async (t) => {
  await using svc = await startServer();
  await using browser = await launchChromium();
  const { base } = svc;
  const { page, problems } = await watchedPage(browser);
  const step = stepsUntilBroken(t);
  const owner = await signUpOver(base, "Ada");
  const poster = await signUpOver(base, "Linus");
  const alertRow = () => page.locator("#alerts-body tr").first();

  await step("the key dialog's scope picker offers alerts:read and alerts:write", async () => {
    await page.goto(`${base}/dashboard`);
    await page.locator("#sign-in-email").fill(owner.email);
    await page.locator("#sign-in-password").fill(owner.password);
    await page.locator("#sign-in-form").getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("main").getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create an API key" });
    await dialog.getByRole("checkbox", { name: /alerts:read/ }).waitFor();
    await dialog.getByRole("checkbox", { name: /alerts:write/ }).waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
  });

  await step("Settings > Task alerts starts empty", async () => {
    await page.getByRole("link", { name: "Task alerts" }).click();
    await page.getByRole("heading", { name: "Task alerts" }).waitFor();
    await page.getByText("No alerts yet").waitFor();
    await shot(page, "40-alerts-empty");
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  await step("adding an alert shows the API's problem beside the field, then adds it", async () => {
    await page.getByRole("button", { name: "Add alert" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a task alert" });
    await dialog.getByLabel("Name").fill("Sinks in Paris");
    await dialog.getByLabel(/^Country code/).fill("FRA");
    await dialog.getByRole("button", { name: "Add alert" }).click();
    await page.locator("#alert-country-error").getByText("two-letter").waitFor();
    assert.equal(await dialog.getByLabel(/^Country code/).getAttribute("aria-invalid"), "true");
    await shot(page, "41-alert-problem");
    await dialog.getByLabel(/^Country code/).fill("");
    await dialog.getByLabel(/^Words/).fill("sink");
    await dialog.getByLabel(/^City/).fill("Paris");
    assert.deepEqual(await accessibilityViolations(page), []);
    await dialog.getByRole("button", { name: "Add alert" }).click();
    await alertRow().getByText("Sinks in Paris").waitFor();
    assert.match((await alertRow().textContent()) ?? "", /words: sink.*city: Paris/);
    await shot(page, "42-alert-added");
  });

  await step("a matching task shows in the alert's matches", async () => {
    const res = await fetch(`${base}/api/v1/tasks`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${poster.token}` },
      body: JSON.stringify(taskBody()),
    });
    assert.equal(res.status, 201);
    await res.body?.cancel();
    await svc.jobs.drain();
    await alertRow().getByRole("button", { name: /^Matches/ }).click();
    const dialog = page.getByRole("dialog", { name: "Matched tasks" });
    await dialog.getByText("Fix the kitchen sink").waitFor();
    await shot(page, "43-alert-matches");
    assert.deepEqual(await accessibilityViolations(page), []);
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  await step("an alert can be disabled and deleted", async () => {
    await alertRow().getByRole("button", { name: /^Disable/ }).click();
    await alertRow().getByText("Disabled").waitFor();
    await alertRow().getByRole("button", { name: /^Delete/ }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Delete alert" }).click();
    await page.getByText("No alerts yet").waitFor();
  });

  await step("the page logged no errors", () => {
    assert.deepEqual(problems, []);
  });
});
