/**
 * Settings > Developer > Webhooks and Settings > Security log in headless Chromium, against the
 * real server with its queue worker and a real receiver: add an endpoint (its secret shown once),
 * send a test, see the delivery and resend it, rotate the secret, disable; read the security log.
 * Screenshots land in test-output/dashboard/.
 */
import assert from "node:assert/strict";
import { serveApp } from "../helpers.ts";
import { startReceiver } from "../webhooks/webhook_receiver.ts";
import { accessibilityViolations } from "./axe.ts";
import { launchChromium } from "./chromium.ts";
import { shot, stepsUntilBroken, waitUntil, watchedPage } from "./dashboard_fixtures.ts";

Deno.test("the dashboard manages webhook endpoints and shows the security log", async (t) => {
  await using svc = await serveApp({ settings: { WEBHOOK_ALLOW_PRIVATE: "true" }, jobs: true });
  await using receiver = startReceiver();
  await using browser = await launchChromium();
  const { base } = svc;
  const { page, problems } = await watchedPage(browser);

  const step = stepsUntilBroken(t);
  const email = `grace-${crypto.randomUUID()}@example.com`;
  const password = "correct horse battery";
  const hookRow = () => page.locator("#webhooks-body tr").first();
  let secret = "";

  await step("an account signs in and opens Settings > Developer > Webhooks", async () => {
    const res = await fetch(`${base}/v1/users`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email, password, firstName: "Grace" }),
    });
    assert.equal(res.status, 201);
    await page.goto(`${base}/dashboard`);
    await page.locator("#sign-in-email").fill(email);
    await page.locator("#sign-in-password").fill(password);
    await page.locator("#sign-in-form").getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("heading", { name: "Webhooks" }).waitFor();
    await page.getByText("No endpoints yet").waitFor();
    await shot(page, "20-webhooks-empty");
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  await step("adding an endpoint shows its signing secret once", async () => {
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
    await dialog.getByLabel("Endpoint URL").fill(receiver.url);
    await dialog.getByLabel("Description").fill("CRM sync");
    await dialog.getByRole("checkbox", { name: "task.created" }).check();
    await dialog.getByRole("checkbox", { name: "webhook.test" }).check();
    assert.equal(await dialog.getByRole("checkbox", { name: /^\*/ }).isChecked(), false);
    await shot(page, "21-webhook-add");
    assert.deepEqual(await accessibilityViolations(page), []);
    await dialog.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByRole("alertdialog", { name: "Your endpoint's signing secret" }).waitFor();
    secret = await page.locator("#secret-value").inputValue();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    receiver.secrets.push(secret);
    await shot(page, "22-webhook-secret");
    await page.getByRole("alertdialog").getByRole("button", { name: "Done" }).click();
    await hookRow().getByText("CRM sync").waitFor();
    assert.match((await hookRow().textContent()) ?? "", /task\.created.*webhook\.test/);
  });

  await step("Send test delivers a signed webhook.test to the receiver", async () => {
    await hookRow().getByRole("button", { name: /^Send test/ }).click();
    await page.getByText("A webhook.test event is on its way").waitFor();
    await receiver.waitFor((r) => r.length >= 1);
    assert.equal(receiver.received[0].event.type, "webhook.test");
    assert.deepEqual(receiver.received[0].verifiedWith, [secret]);
    await shot(page, "23-webhook-test-sent");
  });

  await step("Deliveries lists the attempt, and Resend sends it again with its id", async () => {
    await hookRow().getByRole("button", { name: /^Deliveries/ }).click();
    const dialog = page.getByRole("dialog", { name: "Recent deliveries" });
    await waitUntil(async () => {
      await dialog.getByRole("button", { name: "Refresh" }).click();
      return ((await dialog.locator("#deliveries-body").textContent()) ?? "").includes("succeeded");
    }, "the delivery to succeed");
    assert.match((await dialog.locator("#deliveries-body tr").first().textContent()) ?? "", /200/);
    await shot(page, "24-webhook-deliveries");
    assert.deepEqual(await accessibilityViolations(page), []);
    await dialog.getByRole("button", { name: /^Resend/ }).click();
    await dialog.getByText("Sent again").waitFor();
    await receiver.waitFor((r) => r.length >= 2);
    assert.equal(receiver.received[1].id, receiver.received[0].id);
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  await step("Rotate secret shows the new secret; both sign for a day", async () => {
    await hookRow().getByRole("button", { name: /^Rotate secret/ }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Rotate secret" }).click();
    await page.getByRole("alertdialog", { name: "The endpoint's new signing secret" }).waitFor();
    const rotated = await page.locator("#secret-value").inputValue();
    assert.notEqual(rotated, secret);
    await page.getByRole("alertdialog").getByRole("button", { name: "Done" }).click();
    receiver.secrets.push(rotated);
    await hookRow().getByRole("button", { name: /^Send test/ }).click();
    await receiver.waitFor((r) => r.length >= 3);
    assert.deepEqual(receiver.received[2].verifiedWith, [secret, rotated]);
  });

  await step("Disable marks the endpoint disabled", async () => {
    await hookRow().getByRole("button", { name: /^Disable/ }).click();
    await hookRow().getByText("Disabled").waitFor();
    await hookRow().getByRole("button", { name: /^Enable/ }).waitFor();
    await shot(page, "25-webhook-disabled");
  });

  await step("Settings > Security log lists the sign-in and the endpoint's changes", async () => {
    await page.getByRole("link", { name: "Security log" }).click();
    await page.getByRole("heading", { name: "Security log" }).waitFor();
    const body = page.locator("#log-body");
    await body.getByText("Webhook endpoint added").waitFor();
    const text = (await body.textContent()) ?? "";
    for (const label of ["Signed in", "Webhook secret rotated", "Webhook endpoint changed"]) {
      assert.ok(text.includes(label), label);
    }
    assert.ok(text.includes("127.0.0.1"), "the client address");
    await shot(page, "26-security-log");
    assert.deepEqual(await accessibilityViolations(page), []);
  });

  await step("the page logged no errors", () => {
    assert.deepEqual(problems, []);
  });
});
