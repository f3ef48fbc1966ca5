/**
 * Issue 46 #4, the dashboard tried at 1280 and 390 px: the keys table overflowed with a key of
 * every scope (Revoke cut off), the webhook URL input and the alert dialog's select were left
 * unstyled, and the phone's deliveries view clipped the event id. Checked here for every table
 * and dialog a view shows, at both widths, and for every form control of the page.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { SCOPES } from "../../domain/auth.ts";
import { serveApp } from "../helpers.ts";
import { startReceiver } from "../webhooks/webhook_receiver.ts";
import { launchChromium } from "./chromium.ts";
import { inPage, shot, waitUntil } from "./dashboard_fixtures.ts";

/**
 * What overflows among the visible tables and open dialogs: a table wider than its box (a
 * sideways scroll hides its last columns), a button or code outside its table's or dialog's
 * visible box, a dialog that scrolls sideways, a code cut short by its own box.
 */
const OVERFLOWS = `(() => {
  const found = [];
  const visible = (e) => e.getClientRects().length > 0;
  const name = (e) => e.id || e.closest("[id]")?.id || e.tagName;
  const viewport = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > viewport) found.push("the page scrolls sideways");
  const boxes = [...document.querySelectorAll("table")].filter(visible)
    .map((t) => t.closest(".table-wrap") ?? t.parentElement)
    .concat([...document.querySelectorAll("dialog[open]")]);
  for (const box of boxes) {
    if (box.scrollWidth > box.clientWidth + 0.5) {
      found.push(name(box) + " scrolls sideways by " + (box.scrollWidth - box.clientWidth));
    }
    const r = box.getBoundingClientRect();
    const right = Math.min(r.right, viewport);
    for (const item of box.querySelectorAll("button, code, .key-note")) {
      if (!visible(item)) continue;
      const i = item.getBoundingClientRect();
      if (i.left < r.left - 0.5 || i.right > right + 0.5) {
        found.push(name(box) + ": " + item.textContent.trim().slice(0, 30) + " outside");
      } else if (item.scrollWidth > item.clientWidth + 0.5 && item.clientWidth > 0) {
        found.push(name(box) + ": " + item.textContent.trim().slice(0, 30) + " clipped");
      }
    }
  }
  return found;
})()`;

/**
 * Form controls the stylesheet leaves to the browser's defaults: the dashboard's have its rounded
 * border in its border colour and fill their field's width. Hidden ones count: their dialog opens.
 */
const UNSTYLED = `(() => {
  return [...document.querySelectorAll("input, select, textarea")]
    .filter((c) => !["checkbox", "radio", "hidden"].includes(c.type))
    .filter((c) => {
      const s = getComputedStyle(c);
      return s.borderTopLeftRadius === "0px" || s.borderTopColor !== "rgb(201, 207, 214)";
    })
    .map((c) => c.tagName.toLowerCase() + "#" + c.id + (c.type ? "[" + c.type + "]" : ""));
})()`;

Deno.test("the dashboard's tables and dialogs overflowed and some controls were unstyled (issue 46 #4): at 1280 and 390 px, nothing overflows and every control is styled", async (t) => {
  await using svc = await serveApp({ settings: { WEBHOOK_ALLOW_PRIVATE: "true" }, jobs: true });
  await using receiver = startReceiver();
  await using browser = await launchChromium();
  const { base } = svc;
  const api = async (path: string, init: { method?: string; token?: string; json?: unknown }) => {
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? "POST",
      headers: {
        "Content-Type": "application/json",
        ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
      },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    const body = await res.json();
    assert.ok(res.ok, JSON.stringify(body));
    return body;
  };
  const email = `fit-${crypto.randomUUID()}@example.com`;
  const password = "correct horse battery";
  await api("/v1/users", { json: { email, password, firstName: "Fit" } });
  const { token } = await api("/v1/auth/token", { json: { email, password } });
  // The seeded demo key's shape: every scope, and a long name.
  for (const name of ["Every scope there is, for the demo", "Second key"]) {
    await api("/api/v1/keys", {
      token,
      json: { name, scopes: [...SCOPES], expiresInDays: 30, ipWhitelist: ["198.51.100.0/24"] },
    });
  }
  const hook = await api("/v1/webhooks", { token, json: { url: receiver.url, events: ["*"] } });
  await api(`/v1/webhooks/${hook.id}/test`, { token });
  await receiver.waitFor((received) => received.length >= 1);

  const page: Page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${base}/dashboard`);
  await page.locator("#sign-in-email").fill(email);
  await page.locator("#sign-in-password").fill(password);
  await page.locator("#sign-in-form").getByRole("button", { name: "Sign in" }).click();
  await page.locator("#keys-body tr").first().waitFor();

  await t.step("every form control of the page is styled", async () => {
    assert.deepEqual(await inPage(page, UNSTYLED), []);
  });

  for (const width of [1280, 390]) {
    await t.step(`at ${width} px no table or dialog overflows`, async () => {
      await page.setViewportSize({ width, height: 860 });
      const overflows = async (where: string) => {
        await shot(page, `fit-${width}-${where}`);
        return (await inPage<string[]>(page, OVERFLOWS)).map((o) => `${where}: ${o}`);
      };
      const found: string[] = [];
      await page.getByRole("link", { name: "API Keys" }).click();
      await page.locator("#keys-body tr").first().waitFor();
      found.push(...await overflows("keys"));

      await page.getByRole("link", { name: "Webhooks" }).click();
      await page.locator("#webhooks-body tr").first().waitFor();
      found.push(...await overflows("webhooks"));
      await page.locator("#new-webhook").click();
      await page.locator("#webhook-dialog").waitFor();
      found.push(...await overflows("webhook-dialog"));
      await page.keyboard.press("Escape");
      await page.locator("#webhooks-body button[data-action=deliveries]").first().click();
      await page.locator("#deliveries-body tr").first().waitFor();
      found.push(...await overflows("deliveries-dialog"));
      await page.keyboard.press("Escape");

      await page.getByRole("link", { name: "Task alerts" }).click();
      await page.locator("#new-alert").click();
      await page.locator("#alert-dialog").waitFor();
      found.push(...await overflows("alert-dialog"));
      await page.keyboard.press("Escape");
      await waitUntil(async () => !(await page.locator("dialog[open]").count()), "dialogs closed");
      assert.deepEqual(found, []);
    });
  }
});
