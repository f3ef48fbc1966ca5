/**
 * The dashboard test's later steps, on the page its earlier steps left signed in with no key: an
 * expired key, the key limit, a 429, and the layout at 1280 px and on a phone.
 */
import assert from "node:assert/strict";
import { type Locator, type Page } from "playwright-core";
import { accessibilityViolations } from "./axe.ts";
import {
  callWithKey,
  createDialog,
  expectText,
  inPage,
  newKeyButton,
  REVOKE_HIDDEN,
  shot,
  startServer,
  waitUntil,
} from "./dashboard_fixtures.ts";

/** What the earlier steps hand on: the server, the signed-in page, and the step runner. */
export interface DashboardRun {
  svc: Awaited<ReturnType<typeof startServer>>;
  page: Page;
  step: (name: string, fn: () => void | Promise<void>) => Promise<void>;
  email: string;
  password: string;
  keysTable: Locator;
  row: (name: string) => Locator;
}

export async function limitsAndLayoutSteps(run: DashboardRun) {
  const { svc, page, step, email, password, keysTable, row } = run;
  const { base } = svc;
  await step("a key past its expiry is listed as Expired and refused", async () => {
    svc.clock.offsetMs = 8 * 86_400_000; // created "8 days ago", for 7 days
    await newKeyButton(page).click();
    const dialog = createDialog(page);
    await dialog.getByLabel("Name", { exact: true }).fill("Old laptop");
    await dialog.getByRole("checkbox", { name: /tasks:read/ }).check();
    await dialog.getByRole("radio", { name: "7 days" }).check();
    await dialog.getByRole("button", { name: "Create key" }).click();
    const secret = page.getByRole("alertdialog", { name: "Your new API key" });
    await secret.waitFor();
    const old = await page.locator("#secret-value").inputValue();
    await secret.getByRole("button", { name: "Done" }).click();
    svc.clock.offsetMs = 0;
    await page.getByRole("button", { name: "Refresh" }).click();
    await expectText(row("Old laptop").locator("td").nth(4), "Expired");
    assert.deepEqual(await callWithKey(base, old), { status: 401, code: "API_KEY_INVALID" });
    await shot(page, "14-expired");
  });

  await step("an 11th key shows the API's KEY_LIMIT_REACHED detail", async () => {
    const login = await fetch(`${base}/v1/auth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email, password }),
    }).then((r) => r.json());
    const names = ["Production API", "Staging", "Nightly export", "Mobile app", "Zapier"];
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${base}/api/v1/keys`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${login.token}` },
        body: JSON.stringify({
          name: `${names[i % names.length]}${i < names.length ? "" : ` ${i}`}`,
          scopes: i % 2 ? ["tasks:read"] : ["tasks:read", "tasks:write", "profile:read"],
          expiresInDays: [7, 30, 90, 365][i % 4],
          ...(i % 3 === 0 ? { ipWhitelist: ["198.51.100.0/24", "2001:db8::/32"] } : {}),
        }),
      });
      assert.equal(res.status, 201, await res.text());
    }
    await page.getByRole("button", { name: "Refresh" }).click();
    // Ten active keys, and the expired one, which no longer counts.
    await waitUntil(async () => (await keysTable.locator("tr").count()) === 11, "11 rows");
    await expectText(page.locator("#keys-count"), "10 of 10 active");
    // The keys of 7 days (the 1st, 5th and 9th) are flagged at the top; the expired one is not.
    await expectText(page.locator("#expiring-title"), "3 keys expire within 7 days");
    for (const name of ["Production API", "Mobile app 8"]) {
      await expectText(page.locator("#expiring-list"), name);
    }
    assert.ok(!(await page.locator("#expiring-list").textContent())!.includes("Old laptop"));
    await expectText(row("Mobile app 8").locator("td").nth(4), "Expires soon");
    await shot(page, "15-ten-keys", true);
    assert.deepEqual(await accessibilityViolations(page), []);

    await newKeyButton(page).click();
    const dialog = createDialog(page);
    await dialog.getByLabel("Name", { exact: true }).fill("One too many");
    await dialog.getByRole("checkbox", { name: /tasks:read/ }).check();
    await dialog.getByRole("button", { name: "Create key" }).click();
    await expectText(
      page.locator("#create-error"),
      "An account may have at most 10 active API keys; revoke one first",
    );
    await shot(page, "16-key-limit");
    await page.keyboard.press("Escape");
  });

  await step("a 429 shows the problem's detail and when to retry", async () => {
    // An hour ahead, the creation window is empty: spend it whole (each creation answers 409,
    // 10 keys are active, and still counts), so the page's next creation meets the real 429.
    svc.clock.offsetMs = -3_600_000;
    const login = await fetch(`${base}/v1/auth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email, password }),
    }).then((r) => r.json());
    for (let i = 0; i < 15; i++) {
      const res = await fetch(`${base}/api/v1/keys`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${login.token}` },
        body: JSON.stringify({ name: "spent", scopes: ["tasks:read"], expiresInDays: 1 }),
      });
      assert.equal(res.status, 409, await res.text());
    }
    await newKeyButton(page).click();
    const dialog = createDialog(page);
    await dialog.getByLabel("Name", { exact: true }).fill("Too fast");
    await dialog.getByRole("checkbox", { name: /tasks:read/ }).check();
    await dialog.getByRole("button", { name: "Create key" }).click();
    await expectText(
      page.locator("#create-error"),
      /^At most 15 key creations per minute\. Try again in \d+ seconds\.$/,
    );
    await shot(page, "17-rate-limited");
    await page.keyboard.press("Escape");
    svc.clock.offsetMs = 0;
  });

  await step("at 1280 px the keys table fits: every row's Revoke is in view", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await inPage(page, "scrollTo(0, 0)");
    assert.deepEqual(await inPage(page, REVOKE_HIDDEN), { hidden: [], scroll: 0, some: true });
    await shot(page, "17b-desktop-keys");
  });

  await step("at 390 px wide the page fits a phone", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await inPage(page, "scrollTo(0, 0)");
    assert.deepEqual(await inPage(page, REVOKE_HIDDEN), { hidden: [], scroll: 0, some: true });
    const overflow = await inPage(
      page,
      "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    );
    assert.equal(overflow, 0, "no horizontal scrolling");
    const actionLines = await inPage<number>(
      page,
      `new Set([...document.querySelectorAll("#keys-body tr:first-child .row-actions button")]` +
        `.map((b) => Math.round(b.getBoundingClientRect().top))).size`,
    );
    assert.equal(actionLines, 2, "a card's four actions sit two by two");
    await shot(page, "18-phone-keys");
    assert.deepEqual(await accessibilityViolations(page), []);
    await shot(page, "19-phone-keys-full", true);
    await newKeyButton(page).click();
    await createDialog(page).waitFor();
    await shot(page, "20-phone-create");
    await page.keyboard.press("Escape");
    await row("Mobile app 8").getByRole("button", { name: "Usage key Mobile app 8" }).click();
    const usage = page.getByRole("dialog", { name: "Usage of “Mobile app 8”" });
    await usage.getByRole("img", { name: /^Requests per hour\. 0 requests/ }).waitFor();
    const overflowing = await inPage(
      page,
      "(() => { const d = document.querySelector('#usage-dialog'); " +
        "return d.scrollWidth - d.clientWidth; })()",
    );
    assert.equal(overflowing, 0, "the chart fits the phone's width");
    await shot(page, "20b-phone-usage");
    assert.deepEqual(await accessibilityViolations(page), []);
    await page.keyboard.press("Escape");
    await page.getByRole("link", { name: "Profile" }).click();
    await expectText(page.locator('[data-profile="email"]'), email);
    await shot(page, "21-phone-profile");
    assert.deepEqual(await accessibilityViolations(page), []);
    await page.getByRole("button", { name: "Sign out" }).click();
    await shot(page, "22-phone-sign-in");
  });
}
