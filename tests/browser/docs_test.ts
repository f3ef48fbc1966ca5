/**
 * The /docs reference in headless Chromium, against the real server: its script runs under a
 * CSP that allows no other inline code, a pasted credential never outlives the page, and axe-core
 * finds no serious or critical accessibility violation in it.
 */
import assert from "node:assert/strict";
import { serveApp } from "../helpers.ts";
import { accessibilityViolations } from "./axe.ts";
import { launchChromium } from "./chromium.ts";

Deno.test("/docs keeps a pasted credential in memory only, runs its script under a hash CSP and refuses framing", async () => {
  await using served = await serveApp();
  const { base } = served;
  await using browser = await launchChromium();
  const page = await browser.context.newPage();
  const refused: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  const res = await page.goto(`${base}/docs`);
  const csp = (await res!.allHeaders())["content-security-policy"];
  assert.ok(csp.includes("frame-ancestors 'none'"), csp);
  assert.ok(!csp.includes("unsafe-inline"), csp);

  const secret = "svc_" + "ab".repeat(32);
  await page.fill("#credential", secret);
  await page.dispatchEvent("#credential", "change");
  await page.selectOption("#scheme", "Bearer");

  // The script ran (the CSP allowed it): a try-it form answers in the page.
  const health = page.locator("#getHealth");
  await health.locator("summary").click();
  await health.locator("button[type=submit]").click();
  await health.locator(".result").filter({ hasText: "200" }).waitFor({ timeout: 5000 });

  const stored = await page.evaluate<string>(`JSON.stringify({ ...localStorage })`);
  assert.ok(!stored.includes(secret), `the credential was stored: ${stored}`);
  await page.reload();
  assert.equal(await page.inputValue("#credential"), "", "the credential outlived the page");
  assert.equal(await page.inputValue("#scheme"), "Bearer", "the scheme is remembered");
  assert.deepEqual(refused, []);
});

Deno.test("/docs has no serious or critical accessibility violation, its operations open or closed", async () => {
  await using served = await serveApp();
  await using browser = await launchChromium();
  const page = await browser.context.newPage();
  await page.goto(`${served.base}/docs`);
  const serious = ["serious", "critical"];
  assert.deepEqual(await accessibilityViolations(page, serious), []);
  // Every operation opened, and one answered: its try-it form and result are checked too.
  const health = page.locator("#getHealth");
  await health.locator("summary").click();
  await health.locator("button[type=submit]").click();
  await health.locator(".result").filter({ hasText: "200" }).waitFor({ timeout: 5000 });
  await page.evaluate(`document.querySelectorAll("details").forEach((d) => { d.open = true; })`);
  assert.deepEqual(await accessibilityViolations(page, serious), []);
});
