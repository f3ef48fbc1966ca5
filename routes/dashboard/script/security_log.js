// @ts-check
/// <reference lib="dom" />
// The dashboard's security log view, a part of the page's one script module (see dom.js
// and register.tsx): it uses the earlier parts' helpers.

import { $ } from "./dom.js";
import { api, ApiProblem } from "./api.js";
import { el, fullFormat, timeElement } from "./format.js";
import { LOADERS } from "./views.js";

const logBody = $("#log-body");
const logMore = $("#log-more");
/** @type {string | null} */
let logCursor = null;

/** @type {Record<string, string>} */
const LOG_LABELS = {
  "session.signed_in": "Signed in",
  "session.sign_in_failed": "Failed sign-in",
  "session.signed_out": "Signed out",
  "api_key.created": "API key created",
  "api_key.regenerated": "API key regenerated",
  "api_key.revoked": "API key revoked",
  "api_key.updated": "API key changed",
  "api_key.whitelist_changed": "API key whitelist changed",
  "api_key.expired": "API key expired",
  "webhook.created": "Webhook endpoint added",
  "webhook.updated": "Webhook endpoint changed",
  "webhook.deleted": "Webhook endpoint deleted",
  "webhook.secret_rotated": "Webhook secret rotated",
  "webhook.disabled": "Webhook endpoint disabled after failures",
  "webhook.delivery_skipped": "Webhook delivery skipped: the endpoint may not hear it",
  "webhook.deliveries_delayed": "Alert deliveries delayed: too many in a minute",
  "profile.updated": "Profile changed",
};

/**
 * A user agent in a few words (the whole of it on hover): browsers' strings run long.
 * @param {string | null} userAgent
 */
function clientOf(userAgent) {
  if (!userAgent) return el("span", { class: "muted-text", text: "—" });
  const short = userAgent.length > 48 ? `${userAgent.slice(0, 47)}…` : userAgent;
  return el("span", { title: userAgent, text: short });
}

/** @param {import("./api.js").Json} entry */
function logRow(entry) {
  const concerns = entry.keyId
    ? `key ${entry.keyId}`
    : entry.webhookId
    ? `endpoint ${entry.webhookId}`
    : "—";
  return el("tr", { "data-entry": entry.type }, [
    el("td", { "data-label": "When", class: "nowrap" }, [
      timeElement(entry.createdAt, fullFormat.format(new Date(entry.createdAt))),
    ]),
    el("td", { "data-label": "Event", text: LOG_LABELS[entry.type] ?? entry.type }),
    el("td", { "data-label": "Address" }, [el("code", { text: entry.ip ?? "service" })]),
    el("td", { "data-label": "Client", class: "user-agent" }, [clientOf(entry.userAgent)]),
    el("td", { "data-label": "Concerns" }, [el("span", { class: "key-note", text: concerns })]),
  ]);
}

async function loadLog(more = false) {
  try {
    const query = more && logCursor ? `&cursor=${encodeURIComponent(logCursor)}` : "";
    const page = await api("GET", `/v1/security-log?limit=20${query}`);
    if (more) logBody.append(...page.map(logRow));
    else logBody.replaceChildren(...page.map(logRow));
    logCursor = page.nextCursor;
    logMore.hidden = !logCursor;
    $("#log-error").textContent = "";
  } catch (error) {
    if (!(error instanceof ApiProblem)) throw error;
    $("#log-error").textContent = error.text;
  }
}

LOADERS["security-log"] = () => loadLog(false);
$("#refresh-log").addEventListener("click", () => loadLog(false));
logMore.addEventListener("click", () => loadLog(true));
