/**
 * The dashboard end to end in headless Chromium, against the real server on a free port: sign up,
 * sign in, create a key, use it, see its usage, whitelist, roll it with a grace, revoke; then
 * (dashboard_limits_steps.ts) expiry, the key limit, a 429 and the layout.
 * Screenshots land in test-output/dashboard/.
 */
import assert from "node:assert/strict";
import { accessibilityViolations } from "./axe.ts";
import { launchChromium } from "./chromium.ts";
import {
  callWithKey,
  createDialog,
  expectText,
  focusedId,
  inPage,
  KEY_SHAPE,
  newKeyButton,
  secretErased,
  shot,
  startServer,
  stepsUntilBroken,
  waitUntil,
  watchedPage,
} from "./dashboard_fixtures.ts";
import { limitsAndLayoutSteps } from "./dashboard_limits_steps.ts";

Deno.test("the dashboard manages API keys end to end in Chromium", async (t) => {
  await using svc = await startServer();
  await using browser = await launchChromium();
  const { base } = svc;
  await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
  const { page, problems } = await watchedPage(browser);
  page.on("console", (message) => {
    // Chromium logs every non-2xx fetch; the API's refusals are expected, anything else is not.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
      problems.push(`console: ${message.text()}`);
    }
  });

  // Each step builds on the one before: after a failure the rest are ignored, not failed too.
  const step = stepsUntilBroken(t);

  const email = `ada-${crypto.randomUUID()}@example.com`;
  const password = "correct horse battery";
  const keysTable = page.locator("#keys-body");
  const row = (name: string) => keysTable.locator("tr", { hasText: name });
  let value = "";

  await step("GET /dashboard shows the sign-in form", async () => {
    const res = await page.goto(`${base}/dashboard`);
    assert.equal(res?.status(), 200);
    assert.match(res!.headers()["content-security-policy"], /script-src 'self'/);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.locator("#sign-in-form").getByLabel("Email").waitFor();
    await shot(page, "01-sign-in");
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  await step("sign-up shows the API's own messages next to the fields", async () => {
    await page.getByRole("button", { name: "Create an account" }).click();
    await page.locator("#sign-up-form").getByLabel("First name").fill("Ada");
    await page.locator("#sign-up-email").fill("not-an-email");
    await page.locator("#sign-up-password").fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    await expectText(page.locator("#sign-up-email-error"), /\S/);
    await expectText(page.locator("#sign-up-password-error"), /\S/);
    assert.equal(await page.locator("#sign-up-email").getAttribute("aria-invalid"), "true");
    assert.equal(await focusedId(page), "sign-up-email", "focus goes to the first invalid field");
    await shot(page, "02-sign-up-errors");
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  await step("sign-up creates the account and opens Settings, Developer, API Keys", async () => {
    await page.locator("#sign-up-email").fill(email);
    await page.locator("#sign-up-password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "API Keys" }).waitFor();
    await expectText(page.getByRole("navigation", { name: "Breadcrumb" }), "Developer");
    await expectText(page.locator("#account-email"), email);
    await page.getByText("No API keys yet").waitFor();
    assert.equal(await inPage(page, "localStorage.length + sessionStorage.length"), 0);
    assert.equal(await inPage(page, "document.cookie"), "");
    await shot(page, "03-keys-empty");
  });

  await step("sign out, a wrong password gets the API's detail, then sign in", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await expectText(page.locator("#auth-notice"), "You have signed out.");
    await page.locator("#sign-in-email").fill(email);
    await page.locator("#sign-in-password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expectText(page.locator("#sign-in-error"), "The email or password is not correct");
    await shot(page, "04-sign-in-error");
    await page.locator("#sign-in-password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "API Keys" }).waitFor();
  });

  await step("the create form shows the API's validation messages beside fields", async () => {
    await newKeyButton(page).focus();
    await page.keyboard.press("Enter");
    const dialog = createDialog(page);
    await dialog.waitFor();
    assert.equal(await focusedId(page), "create-name", "focus moves into the dialog");
    await dialog.getByLabel("IP whitelist").fill("10.0.0.1\n\nnot-an-ip");
    await dialog.getByRole("button", { name: "Create key" }).click();
    await expectText(page.locator("#create-name-error"), /\S/);
    await expectText(page.locator("#create-scopes-error"), /\S/);
    await expectText(
      page.locator("#create-whitelist-error"),
      'Line 3: "not-an-ip" is not an IP address or CIDR range',
    );
    await shot(page, "05-create-errors");
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  await step("a new key's value is shown once, in a focused dialog, with Copy", async () => {
    const dialog = createDialog(page);
    await dialog.getByLabel("Name", { exact: true }).fill("CI deploy");
    await dialog.getByRole("checkbox", { name: /tasks:read/ }).check();
    await dialog.getByRole("checkbox", { name: /profile:read/ }).check();
    await dialog.getByRole("radio", { name: "90 days" }).check();
    await dialog.getByLabel("IP whitelist").fill("");
    await dialog.getByRole("button", { name: "Create key" }).click();
    const secret = page.getByRole("alertdialog", { name: "Your new API key" });
    await secret.waitFor();
    await expectText(secret, "it will not be shown again");
    assert.equal(await focusedId(page), "secret-value", "focus moves to the new key");
    value = await page.locator("#secret-value").inputValue();
    assert.match(value, KEY_SHAPE);
    await secret.getByRole("button", { name: "Copy" }).click();
    await expectText(page.locator("#copy-status"), "Copied");
    assert.equal(await inPage(page, "navigator.clipboard.readText()"), value);
    await shot(page, "06-new-key-once");
    assert.deepEqual(await accessibilityViolations(page), []);
    await secret.getByRole("button", { name: "Done" }).click();
    await secret.waitFor({ state: "hidden" });
    await secretErased(page);
    assert.ok(!(await page.content()).includes(value), "the value leaves the page");
    assert.equal(await focusedId(page), "new-key", "focus returns to Create key");
  });

  await step("the table shows name, prefix…last4, scopes, dates and Last Used", async () => {
    const cells = row("CI deploy").locator("td");
    await expectText(cells.nth(1), `${value.slice(0, 8)}…${value.slice(-4)}`);
    await expectText(cells.nth(2), "tasks:read");
    await expectText(cells.nth(2), "profile:read");
    const today = new Date();
    const year = (d: Date) => String(d.getUTCFullYear());
    await expectText(cells.nth(3), year(today));
    await expectText(cells.nth(4), year(new Date(today.getTime() + 90 * 86_400_000)));
    await expectText(cells.nth(5), "Never");
    assert.ok(!(await cells.nth(4).textContent())!.includes("Expired"));
    await shot(page, "07-keys-table");
  });

  await step("a call with the key moves Last Used from Never", async () => {
    svc.clock.offsetMs = 2 * 60_000; // the call happens "two minutes ago"
    assert.deepEqual(await callWithKey(base, value), { status: 200, code: undefined });
    svc.clock.offsetMs = 0;
    await svc.deps.lastUsed.flush();
    await page.getByRole("button", { name: "Refresh" }).click();
    await expectText(row("CI deploy").locator("td").nth(5), "2 minutes ago");
    await expectText(row("CI deploy").locator("td").nth(5), "from 127.0.0.1");
    await shot(page, "08-last-used");
  });

  await step("a key's usage chart shows its requests per hour, stacked by outcome", async () => {
    for (let i = 0; i < 4; i++) assert.equal((await callWithKey(base, value)).status, 200);
    const refused = await fetch(`${base}/v1/projects`, { headers: { "X-API-Key": value } });
    assert.equal(refused.status, 403);
    await refused.body?.cancel();
    svc.deps.usage.release(); // the counts ride on the next flush, not 10 s later
    await svc.deps.rateLimiter.sync(); // what main.ts does every 100 ms
    await row("CI deploy").getByRole("button", { name: "Usage key CI deploy" }).click();
    const dialog = page.getByRole("dialog", { name: "Usage of “CI deploy”" });
    await dialog.waitFor();
    // The call of "two minutes ago" counts too: 5 answered 200, 1 answered 403.
    await expectText(
      page.locator("#usage-totals"),
      "6 requests in the last 24 hours: 5 2xx, 1 4xx, 0 429, 0 5xx.",
    );
    const chart = dialog.getByRole("img", { name: /^Requests per hour\. 6 requests/ });
    await chart.waitFor();
    assert.equal(await chart.locator("g.bar").count(), 24);
    assert.equal(await chart.locator("rect.layer.ok").count() >= 1, true);
    assert.equal(await chart.locator("rect.layer.client-error").count(), 1);
    await shot(page, "08b-usage-24h");
    assert.deepEqual(await accessibilityViolations(page), []);
    await dialog.getByRole("radio", { name: "7 days" }).check();
    await waitUntil(async () => (await chart.locator("g.bar").count()) === 168, "168 hours");
    await dialog.getByRole("radio", { name: "90 days" }).check();
    const days = dialog.getByRole("img", { name: /^Requests per day\./ });
    await waitUntil(async () => (await days.locator("g.bar").count()) === 90, "90 days");
    await dialog.getByText("Figures as a table").click();
    await expectText(page.locator("#usage-table tbody"), "5");
    await shot(page, "08c-usage-90d");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
  });

  await step("a whitelist without the caller's address refuses its calls", async () => {
    await row("CI deploy").getByRole("button", { name: "Edit key CI deploy" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit “CI deploy”" });
    await dialog.waitFor();
    assert.equal(await focusedId(page), "edit-whitelist");
    await dialog.getByLabel("IP whitelist").fill("203.0.113.0/24");
    await shot(page, "09-edit-whitelist");
    await dialog.getByRole("button", { name: "Save changes" }).click();
    await dialog.waitFor({ state: "hidden" });
    await expectText(row("CI deploy"), "IP: 203.0.113.0/24");
    assert.deepEqual(await callWithKey(base, value), { status: 401, code: "IP_NOT_ALLOWED" });
    await shot(page, "10-whitelisted");

    await row("CI deploy").getByRole("button", { name: "Edit key CI deploy" }).click();
    await dialog.getByLabel("IP whitelist").fill("127.0.0.1\n203.0.113.0/24");
    await dialog.getByRole("button", { name: "Save changes" }).click();
    await dialog.waitFor({ state: "hidden" });
    await expectText(row("CI deploy"), "IP: 127.0.0.1, 203.0.113.0/24");
    assert.equal((await callWithKey(base, value)).status, 200);
  });

  await step("regenerating asks first, shows the new value once, refuses the old", async () => {
    await row("CI deploy").getByRole("button", { name: "Regenerate key CI deploy" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Regenerate “CI deploy”?" });
    await confirm.waitFor();
    assert.equal(await focusedId(page), "regenerate-cancel", "the safe choice has the focus");
    assert.ok(await confirm.getByRole("radio", { name: "Immediately" }).isChecked());
    await shot(page, "11-regenerate-confirm");
    assert.deepEqual(await accessibilityViolations(page), []);
    await confirm.getByRole("button", { name: "Regenerate key" }).click();
    const secret = page.getByRole("alertdialog", { name: "Your regenerated API key" });
    await secret.waitFor();
    const renewed = await page.locator("#secret-value").inputValue();
    assert.match(renewed, KEY_SHAPE);
    assert.notEqual(renewed, value);
    assert.ok(await page.locator("#secret-grace").isHidden(), "no grace was chosen");
    await shot(page, "12-regenerated-once");
    await page.keyboard.press("Escape");
    await secret.waitFor({ state: "hidden" });
    await secretErased(page);
    await expectText(row("CI deploy").locator("td").nth(1), `…${renewed.slice(-4)}`);
    assert.deepEqual(await callWithKey(base, value), { status: 401, code: "API_KEY_INVALID" });
    assert.equal((await callWithKey(base, renewed)).status, 200);
    value = renewed;
  });

  await step(
    "rolling with a 1 h grace keeps both values working and shows the deadline",
    async () => {
      await row("CI deploy").getByRole("button", { name: "Regenerate key CI deploy" }).click();
      const confirm = page.getByRole("alertdialog", { name: "Regenerate “CI deploy”?" });
      await confirm.waitFor();
      await confirm.getByRole("radio", { name: "In 1 hour" }).check();
      await expectText(page.locator("#regenerate-deadline"), "Both values work until about");
      await shot(page, "12b-regenerate-grace-choice");
      assert.deepEqual(await accessibilityViolations(page), []);
      await confirm.getByRole("button", { name: "Regenerate key" }).click();
      const secret = page.getByRole("alertdialog", { name: "Your regenerated API key" });
      await secret.waitFor();
      const rolled = await page.locator("#secret-value").inputValue();
      assert.match(rolled, KEY_SHAPE);
      await expectText(page.locator("#secret-grace"), "The old value keeps working until");
      await shot(page, "12c-rolled-with-grace");
      await page.keyboard.press("Escape");
      await secret.waitFor({ state: "hidden" });
      await expectText(row("CI deploy").locator("td").nth(1), "Old value works until");
      const deadline = await row("CI deploy").locator("td").nth(1).locator("time")
        .getAttribute("datetime");
      const left = Date.parse(deadline!) - Date.now();
      assert.ok(left > 3_590_000 && left <= 3_600_000, `the deadline is an hour away (${left} ms)`);
      assert.equal((await callWithKey(base, value)).status, 200, "the old value still works");
      assert.equal((await callWithKey(base, rolled)).status, 200, "the new value works");
      await shot(page, "12d-grace-in-table");
      svc.clock.offsetMs = -3_600_000; // an hour later
      assert.deepEqual(await callWithKey(base, value), { status: 401, code: "API_KEY_INVALID" });
      assert.equal((await callWithKey(base, rolled)).status, 200);
      svc.clock.offsetMs = 0;
      value = rolled;
    },
  );

  await step("revoking asks first; Escape keeps the key, confirming ends it", async () => {
    const revokeButton = row("CI deploy").getByRole("button", { name: "Revoke key CI deploy" });
    await revokeButton.click();
    const confirm = page.getByRole("alertdialog", { name: "Revoke “CI deploy”?" });
    await confirm.waitFor();
    await page.keyboard.press("Escape");
    await confirm.waitFor({ state: "hidden" });
    assert.equal(await row("CI deploy").count(), 1);
    assert.equal(await callWithKey(base, value).then((r) => r.status), 200);

    await revokeButton.click();
    await shot(page, "13-revoke-confirm");
    await confirm.getByRole("button", { name: "Revoke key" }).click();
    await expectText(page.locator("#keys-status"), "Key “CI deploy” revoked.");
    await page.getByText("No API keys yet").waitFor();
    assert.deepEqual(await callWithKey(base, value), { status: 401, code: "API_KEY_INVALID" });
  });

  await limitsAndLayoutSteps({ svc, page, step, email, password, keysTable, row });

  await step("the page raised no script error and broke no CSP rule", () => {
    assert.deepEqual(problems, []);
  });
});
