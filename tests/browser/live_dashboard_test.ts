/**
 * The dashboard's live updates in headless Chromium against the real server: signed in, the page
 * opens the event stream with a ticket (EventSource); a new application (a new conversation), a
 * message in the open thread and a key created elsewhere appear without a reload; axe finds
 * nothing in the status line. Screenshots land in test-output/dashboard/.
 */
import assert from "node:assert/strict";
import { accessibilityViolations } from "./axe.ts";
import { launchChromium } from "./chromium.ts";
import { shot, startServer } from "./dashboard_fixtures.ts";
import { taskBody } from "../tasks/task_fixtures.ts";

async function call(base: string, path: string, token: string, json?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method: json === undefined ? "GET" : "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const body = await res.json();
  assert.ok(res.status < 300, `${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function signUp(base: string, firstName: string) {
  const email = `${firstName.toLowerCase()}-${crypto.randomUUID()}@example.com`;
  const password = "correct horse battery";
  const json = (body: unknown) => ({
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const created = await fetch(`${base}/v1/users`, json({ email, password, firstName }));
  assert.equal(created.status, 201);
  await created.body?.cancel();
  const { token } = await (await fetch(`${base}/v1/auth/token`, json({ email, password }))).json();
  return { email, password, token: token as string };
}

Deno.test("the dashboard shows a new application, a message and a key as they happen, without a reload", async (t) => {
  await using svc = await startServer();
  await using browser = await launchChromium();
  const { base } = svc;
  const page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  let loads = 0;
  page.on("load", () => loads++);
  const ada = await signUp(base, "Ada");
  const bob = await signUp(base, "Bob");
  const task = await call(base, "/api/v1/tasks", ada.token, taskBody({ title: "Paint a fence" }));
  const live = page.locator("#live-status");

  await t.step("signed in, the page is live", async () => {
    await page.goto(`${base}/dashboard#messages`);
    await page.locator("#sign-in-email").fill(ada.email);
    await page.locator("#sign-in-password").fill(ada.password);
    await page.locator("#sign-in-form").getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Messages", level: 1 }).waitFor();
    await live.getByText(/^Live/).waitFor();
  });

  await t.step("Bob applies: the conversation appears in Messages", async () => {
    assert.equal(await page.locator("#conversations-list button").count(), 0);
    const application = await call(base, `/api/v1/tasks/${task.id}/applications`, bob.token, {
      message: "I have brushes",
    });
    await page.locator("#conversations-list button").getByText("Paint a fence").waitFor();
    await page.locator("#conversations-list button").first().click();
    await call(base, `/api/v1/applications/${application.id}/messages`, bob.token, {
      body: "Which colour?",
    });
    await page.getByText("Which colour?").first().waitFor();
    await shot(page, "60-live-message");
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  await t.step("a key created by another of Ada's sessions appears in API Keys", async () => {
    await page.getByRole("link", { name: "API Keys" }).click();
    await page.getByRole("heading", { name: "API Keys", level: 1 }).waitFor();
    await call(base, "/api/v1/keys", ada.token, {
      name: "made elsewhere",
      scopes: ["tasks:read"],
      expiresInDays: 5,
    });
    await page.locator("#keys-body").getByText("made elsewhere").waitFor();
  });

  assert.equal(loads, 1, "nothing was reloaded");
  assert.deepEqual(problems, []);
});
