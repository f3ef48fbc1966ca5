// @ts-check
/// <reference lib="dom" />
// Navigation between the dashboard's views, and the profile view. A part of the page's one script
// module (see dom.js); each view's part adds its loader to LOADERS.

import { $, $$ } from "./dom.js";
import { session } from "./api.js";
import { dateFormat } from "./format.js";
import { loadKeys } from "./keys_table.js";

/** @type {Record<string, string>} */
const VIEWS = {
  "api-keys": "API Keys",
  "webhooks": "Webhooks",
  "alerts": "Task alerts",
  "messages": "Messages",
  "security-log": "Security log",
  "profile": "Profile",
};
/**
 * What fills each view when it is shown; the webhooks part of the script adds its own.
 * @type {Record<string, () => unknown>}
 */
export const LOADERS = { "api-keys": () => loadKeys(), "profile": () => renderProfile() };

/** @param {boolean} userNavigated */
export async function showView(userNavigated) {
  if (!session.token) return;
  const name = location.hash.slice(1) in VIEWS ? location.hash.slice(1) : "api-keys";
  for (const view of Object.keys(VIEWS)) $(`#${view}-view`).hidden = view !== name;
  for (const link of $$(".sidenav a")) {
    if (link.dataset.view === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  document.title = `${VIEWS[name]} · Task Marketplace`;
  if (userNavigated) {
    const heading = $(`#${name}-view h1`);
    heading.setAttribute("tabindex", "-1");
    heading.focus();
  }
  await LOADERS[name]?.();
}

addEventListener("hashchange", () => showView(true));

function renderProfile() {
  const p = session.profile;
  if (!p) return;
  const values = {
    name: [p.firstName, p.lastName].filter(Boolean).join(" "),
    email: p.email,
    id: p.id,
    createdAt: dateFormat.format(new Date(p.createdAt)),
  };
  for (const [field, value] of Object.entries(values)) {
    $(`[data-profile="${field}"]`).textContent = value;
  }
}
