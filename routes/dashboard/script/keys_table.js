// @ts-check
/// <reference lib="dom" />
// The API Keys view's table: loading, rows with their action buttons, the expiring-soon notice.
// A part of the page's one script module (see dom.js); key_buttons.js sends the buttons' clicks
// to the actions, which reload this table, so neither imports the other.

import { $, $$ } from "./dom.js";
import { api, statusLines } from "./api.js";
import { dateFormat, el, fullFormat, relativeTime, timeElement } from "./format.js";

/** @typedef {import("./api.js").Json} Json */

/** The keys as last loaded: the API's key metadata. */
/** @type {Json[]} */
export let keys = [];

/** Drops the loaded keys (the session ended). */
export function forgetKeys() {
  keys = [];
}

export const keysBody = $("#keys-body");
export const keysError = $("#keys-error");
export const { announce, report: reportError } = statusLines($("#keys-status"), keysError);

export async function loadKeys() {
  const table = $("#keys-table");
  table.setAttribute("aria-busy", "true");
  try {
    keys = await api("GET", "/api/v1/keys");
    renderKeys();
  } catch (error) {
    reportError(error);
  } finally {
    table.setAttribute("aria-busy", "false");
  }
}

/** @param {string[]} list */
function whitelistNote(list) {
  if (list.length === 0) return "Any IP address";
  const shown = list.slice(0, 2).join(", ");
  return list.length > 2 ? `IP: ${shown} +${list.length - 2} more` : `IP: ${shown}`;
}

const ACTIONS = [
  { action: "usage", label: "Usage", title: "Show the key's requests by hour or day" },
  { action: "edit", label: "Edit", title: "Edit name and IP whitelist" },
  { action: "regenerate", label: "Regenerate", title: "Regenerate the key's value" },
  { action: "revoke", label: "Revoke", title: "Revoke the key", danger: true },
];

// Line icons, 24x24, drawn with the current text colour.
/** @type {Record<string, string[]>} */
const ICONS = {
  usage: ["M3 3v18h18", "M8 17v-4", "M13 17V9", "M18 17V6"],
  edit: ["M12 20h9", "M16.5 3.5a2.12 2.12 0 0 1 3 3L7 19l-4 1 1-4Z"],
  regenerate: [
    "M3 12a9 9 0 0 1 9-9 9.75 9.75 0 0 1 6.74 2.74L21 8",
    "M21 3v5h-5",
    "M21 12a9 9 0 0 1-9 9 9.75 9.75 0 0 1-6.74-2.74L3 16",
    "M8 16H3v5",
  ],
  revoke: [
    "M3 6h18",
    "M19 6l-1 14a2 2 0 0 1-2 2H8a2 2 0 0 1-2-2L5 6",
    "M8 6V4a2 2 0 0 1 2-2h4a2 2 0 0 1 2 2v2",
  ],
};

/** @param {string} name */
function icon(name) {
  const svgNs = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNs, "svg");
  for (
    const [attr, value] of Object.entries({
      viewBox: "0 0 24 24",
      width: "16",
      height: "16",
      fill: "none",
      stroke: "currentColor",
      "stroke-width": "2",
      "stroke-linecap": "round",
      "stroke-linejoin": "round",
      "aria-hidden": "true",
      focusable: "false",
    })
  ) svg.setAttribute(attr, value);
  for (const d of ICONS[name]) {
    const path = document.createElementNS(svgNs, "path");
    path.setAttribute("d", d);
    svg.append(path);
  }
  return svg;
}

/** @param {Json} key */
function keyRow(key) {
  const actions = ACTIONS.map(({ action, label, title, danger }) =>
    el("button", {
      type: "button",
      class: `button small icon${danger ? " ghost-danger" : ""}`,
      "data-action": action,
      "aria-label": `${label} key ${key.name}`,
      title,
    }, [icon(action), el("span", { class: "icon-label", text: label })])
  );
  /** @type {HTMLElement[]} */
  const expires = [timeElement(key.expiresAt, dateFormat.format(new Date(key.expiresAt)))];
  if (key.status === "expired") expires.push(el("span", { class: "badge", text: "Expired" }));
  else if (expiresSoon(key)) {
    expires.push(el("span", { class: "badge soon", text: "Expires soon" }));
  }
  const lastUsed = key.lastUsedAt
    ? timeElement(key.lastUsedAt, relativeTime(key.lastUsedAt))
    : el("span", { class: "muted-text", text: "Never" });
  if (key.lastUsedAt) lastUsed.dataset.relative = "";
  const lastUsedFrom = key.lastUsedIp &&
    el("span", { class: "key-note last-used-from", text: `from ${key.lastUsedIp}` });
  const grace = key.previousExpiresAt &&
    el("span", { class: "key-note grace" }, [
      "Old value works until ",
      timeElement(key.previousExpiresAt, fullFormat.format(new Date(key.previousExpiresAt))),
    ]);
  return el("tr", { "data-key-id": key.id, class: key.status }, [
    el("td", { "data-label": "Name" }, [
      el("div", {}, [
        el("span", { class: "key-name", text: key.name }),
        el("span", { class: "key-note", text: whitelistNote(key.ipWhitelist) }),
      ]),
    ]),
    el("td", { "data-label": "Key" }, [
      el("code", { class: "key-value", text: `${key.prefix}…${key.last4}` }),
      grace,
    ]),
    el("td", { "data-label": "Scopes" }, [
      el(
        "div",
        { class: "chips" },
        key.scopes.map((/** @type {string} */ s) => el("span", { class: "chip", text: s })),
      ),
    ]),
    el("td", { "data-label": "Created", class: "nowrap" }, [
      timeElement(key.createdAt, dateFormat.format(new Date(key.createdAt))),
    ]),
    el("td", { "data-label": "Expires", class: "nowrap" }, [
      el("div", { class: "stack" }, expires),
    ]),
    el("td", { "data-label": "Last Used", class: "nowrap last-used" }, [
      el("div", {}, [lastUsed, lastUsedFrom]),
    ]),
    el("td", { class: "actions" }, [el("div", { class: "row-actions" }, actions)]),
  ]);
}

const SOON_MS = 7 * 86_400_000;

/**
 * An active key that expires within 7 days.
 * @param {Json} key
 */
function expiresSoon(key) {
  return key.status === "active" && Date.parse(key.expiresAt) - Date.now() < SOON_MS;
}

/** Flags, above the table, the keys that expire within 7 days, soonest first. */
function renderExpiring() {
  const soon = keys.filter(expiresSoon)
    .sort((a, b) => a.expiresAt.localeCompare(b.expiresAt));
  $("#expiring").hidden = soon.length === 0;
  $("#expiring-title").textContent = soon.length === 1
    ? "1 key expires within 7 days: create its successor before then."
    : `${soon.length} keys expire within 7 days: create their successors before then.`;
  $("#expiring-list").replaceChildren(...soon.map((key) =>
    el("li", {}, [
      el("strong", { text: key.name }),
      " expires ",
      timeElement(key.expiresAt, fullFormat.format(new Date(key.expiresAt))),
    ])
  ));
}

function renderKeys() {
  keysBody.replaceChildren(...keys.map(keyRow));
  renderExpiring();
  const count = $("#keys-count");
  const active = keys.filter((k) => k.status === "active").length;
  count.textContent = `${active} of ${count.dataset.max} active`;
  count.hidden = false;
  $("#keys-empty").hidden = keys.length > 0;
  $("#keys-table thead").hidden = keys.length === 0;
}

// Relative times age while the page stays open.
setInterval(() => {
  for (const time of $$("time[data-relative]", keysBody)) {
    time.textContent = relativeTime(/** @type {HTMLTimeElement} */ (time).dateTime);
  }
}, 30_000);
