/**
 * The dashboard's live updates in headless Chromium against the real server: signed in, the page
 * opens the event stream with a ticket (EventSource); a new application (a new conversation), a
 * message in the open thread and a key created elsewhere appear without a reload; axe finds
 * nothing in the status line. Screenshots land in test-output/dashboard/.
 */
import assert from "node:assert/strict";
import { accessibilityViolations } from "./axe.ts";
import { launchChromium } from "./chromium.ts";
import { callAs, shot, signUpOver, startServer, watchedPage } from "./dashboard_fixtures.ts";
import { taskBody } from "../tasks/task_fixtures.ts";

Deno.test("the dashboard shows a new application, a message and a key as they happen, without a reload", async (t) => {
  await using svc = await startServer();
  await using browser = await launchChromium();
  const { base } = svc;
  const { page, problems } = await watchedPage(browser);
  let loads = 0;
  page.on("load", () => loads++);
  const ada = await signUpOver(base, "Ada");
  const bob = await signUpOver(base, "Bob");
  const task = await callAs(base, "/api/v1/tasks", ada.token, taskBody({ title: "Paint a fence" }));
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
    const application = await callAs(base, `/api/v1/tasks/${task.id}/applications`, bob.token, {
      message: "I have brushes",
    });
    await page.locator("#conversations-list button").getByText("Paint a fence").waitFor();
    await page.locator("#conversations-list button").first().click();
    await callAs(base, `/api/v1/applications/${application.id}/messages`, bob.token, {
      body: "Which colour?",
    });
    await page.getByText("Which colour?").first().waitFor();
    await shot(page, "60-live-message");
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  await t.step("a key created by another of Ada's sessions appears in API Keys", async () => {
    await page.getByRole("link", { name: "API Keys" }).click();
    await page.getByRole("heading", { name: "API Keys", level: 1 }).waitFor();
    await callAs(base, "/api/v1/keys", ada.token, {
      name: "made elsewhere",
      scopes: ["tasks:read"],
      expiresInDays: 5,
    });
    await page.locator("#keys-body").getByText("made elsewhere").waitFor();
  });

  assert.equal(loads, 1, "nothing was reloaded");
  assert.deepEqual(problems, []);
});
