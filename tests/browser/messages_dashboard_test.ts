/**
 * The dashboard's Messages view in headless Chromium, against the real server: the scope picker
 * offers messages:read and messages:write; a conversation with an unread badge, opened from the
 * keyboard, marked read; a reply from the composer (Ctrl+Enter), an empty message refused beside
 * the field; the page at 390 px wide; axe finds nothing at each step. Screenshots land in
 * test-output/dashboard/.
 */
import assert from "node:assert/strict";
import { accessibilityViolations } from "./axe.ts";
import { launchChromium } from "./chromium.ts";
import {
  callAs,
  inPage,
  shot,
  signUpOver,
  startServer,
  stepsUntilBroken,
  watchedPage,
} from "./dashboard_fixtures.ts";
import { taskBody } from "../tasks/task_fixtures.ts";

Deno.test("the dashboard's Messages view: unread badges, a thread, a composer, at 390 px", async (t) => {
  await using svc = await startServer();
  await using browser = await launchChromium();
  const { base } = svc;
  const { page, problems } = await watchedPage(browser);
  const step = stepsUntilBroken(t);
  const ada = await signUpOver(base, "Ada");
  const bob = await signUpOver(base, "Bob");
  const task = await callAs(
    base,
    "/api/v1/tasks",
    ada.token,
    taskBody({ title: "Assemble a desk" }),
  );
  const application = await callAs(base, `/api/v1/tasks/${task.id}/applications`, bob.token, {
    message: "I have the tools",
  });
  const messagesPath = `/api/v1/applications/${application.id}/messages`;
  await callAs(base, messagesPath, bob.token, { body: "Hello! Which floor is it?" });
  await callAs(base, messagesPath, bob.token, {
    body: "And is there a lift?\nI can bring a trolley.",
  });
  const conversation = () => page.locator("#conversations-list button").first();

  await step("the key dialog's scope picker offers messages:read and messages:write", async () => {
    await page.goto(`${base}/dashboard`);
    await page.locator("#sign-in-email").fill(ada.email);
    await page.locator("#sign-in-password").fill(ada.password);
    await page.locator("#sign-in-form").getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("main").getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create an API key" });
    await dialog.getByRole("checkbox", { name: /messages:read/ }).waitFor();
    await dialog.getByRole("checkbox", { name: /messages:write/ }).waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
  });

  await step("Messages lists the conversation with its unread badge", async () => {
    await page.getByRole("link", { name: "Messages" }).click();
    await page.getByRole("heading", { name: "Messages", level: 1 }).waitFor();
    await conversation().getByText("2 unread").waitFor();
    const text = (await conversation().textContent()) ?? "";
    assert.match(text, /Assemble a desk/);
    assert.match(text, /Bob · pending/);
    assert.match(text, /I can bring a trolley/);
    await shot(page, "50-messages-list");
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  await step("the keyboard opens the thread, oldest first, and marks it read", async () => {
    await conversation().focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Assemble a desk · Bob" }).waitFor();
    const bodies = await page.locator("#thread-messages .message-body").allTextContents();
    assert.deepEqual(bodies, [
      "Hello! Which floor is it?",
      "And is there a lift?\nI can bring a trolley.",
    ]);
    assert.equal(await inPage<string>(page, `document.activeElement?.id ?? ""`), "thread-heading");
    await page.waitForFunction(`!document.querySelector("#conversations-list .unread")`);
    const listed = await callAs(base, "/api/v1/conversations", ada.token);
    assert.equal(listed[0].unread, 0, "the read marker moved on the server");
    await shot(page, "51-messages-thread");
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  await step("an empty message is refused beside the field; Ctrl+Enter sends a reply", async () => {
    const box = page.getByLabel("Message", { exact: true });
    await box.fill("   ");
    await page.locator("#composer").getByRole("button", { name: "Send" }).click();
    await page.locator("#composer-body-error").getByText(/./).waitFor();
    assert.equal(await box.getAttribute("aria-invalid"), "true");
    await box.fill("Third floor, and yes, a lift.");
    await box.press("Control+Enter");
    await page.locator("#thread-messages .message.mine").getByText("Third floor, and yes, a lift.")
      .waitFor();
    assert.equal(await box.inputValue(), "");
    const thread = await callAs(base, messagesPath, bob.token);
    assert.equal(thread[0].body, "Third floor, and yes, a lift.", "Bob sees the reply");
    await shot(page, "52-messages-reply");
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  await step("at 390 px wide the view fits a phone", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("heading", { name: "Assemble a desk · Bob" }).waitFor();
    const overflow = await inPage<number>(
      page,
      "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    );
    assert.equal(overflow, 0, "no sideways scrolling");
    await shot(page, "53-messages-narrow", true);
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  assert.deepEqual(problems, []);
});
