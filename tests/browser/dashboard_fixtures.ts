/** Shared by the dashboard's browser tests: the server, screenshots and page helpers. */
import assert from "node:assert/strict";
import { type Locator, type Page } from "playwright-core";
import { serveApp } from "../helpers.ts";
import type { Chromium } from "./chromium.ts";

export const SHOTS = new URL("../../test-output/dashboard/", import.meta.url);
export const KEY_SHAPE = /^svc_[0-9a-f]{64}$/;

/** A real server on 127.0.0.1 and a free port, on a fresh :memory: KV, with a settable clock. */
export async function startServer() {
  const clock = { offsetMs: 0 };
  // A low key-creation limit, so that the page meets a real 429 (the test creates 13 keys before).
  const served = await serveApp({
    settings: { KEY_CREATION_PER_MINUTE: 15 },
    deps: { now: () => Date.now() - clock.offsetMs },
  });
  return Object.assign(served, { clock });
}

/** A new page whose waits give up after 10 s; `problems` collects its uncaught errors. */
export async function watchedPage(browser: Chromium) {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  return { page, problems };
}

/** Steps that are skipped once one has failed: the later ones build on what it should have left. */
export function stepsUntilBroken(t: Deno.TestContext) {
  let broken = false;
  return async (name: string, fn: () => void | Promise<void>) => {
    if (!(await t.step({ name, ignore: broken, fn }))) broken = true;
  };
}

export async function shot(page: Page, name: string, fullPage = false) {
  await Deno.mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname, fullPage });
}

/** Calls the API from the test itself (peer address 127.0.0.1), as a key's consumer would. */
export async function callWithKey(base: string, key: string) {
  const res = await fetch(`${base}/v1/users/me`, { headers: { "X-API-Key": key } });
  const body = await res.json();
  return { status: res.status, code: body.code as string | undefined };
}

export async function expectText(locator: Locator, expected: string | RegExp) {
  await locator.waitFor();
  await waitUntil(async () => {
    const text = (await locator.textContent()) ?? "";
    return typeof expected === "string" ? text.includes(expected) : expected.test(text);
  }, `${locator} to show ${expected}`);
}

export async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Browser-side expressions are strings: this module is type-checked without the DOM library. */
export const inPage = <T>(page: Page, expression: string) => page.evaluate<T>(expression);
export const newKeyButton = (page: Page) =>
  page.getByRole("main").getByRole("button", { name: "Create key" });
export const createDialog = (page: Page) => page.getByRole("dialog", { name: "Create an API key" });
/** The dialog's "close" event, which erases the shown value, runs a task after it hides. */
export const secretErased = (page: Page) =>
  waitUntil(async () => (await page.locator("#secret-value").inputValue()) === "", "erasure");
export const focusedId = (page: Page) => inPage<string>(page, `document.activeElement?.id ?? ""`);

/** Rows whose Revoke button lies outside the visible box of the table (or the window). */
export const REVOKE_HIDDEN = `(() => {
  const wrap = document.querySelector(".table-wrap").getBoundingClientRect();
  const right = Math.min(wrap.right, document.documentElement.clientWidth);
  const hidden = [];
  let rows = 0;
  for (const tr of document.querySelectorAll("#keys-body tr")) {
    const revoke = tr.querySelector('button[data-action="revoke"]');
    if (!revoke) continue;
    rows++;
    const r = revoke.getBoundingClientRect();
    if (r.width === 0 || r.left < wrap.left - 0.5 || r.right > right + 0.5) {
      hidden.push(tr.textContent.trim().slice(0, 40));
    }
  }
  const table = document.querySelector(".table-wrap");
  return { hidden, scroll: table.scrollWidth - table.clientWidth, some: rows >= 5 };
})()`;

/** A JSON call with a session token, GET or (with a body) POST; fails the test on an error. */
export async function callAs(base: string, path: string, token: string, json?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method: json === undefined ? "GET" : "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const body = await res.json();
  assert.ok(res.status < 300, `${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Signs up a fresh account over HTTP; its email, password and a session token. */
export async function signUpOver(base: string, firstName: string) {
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
