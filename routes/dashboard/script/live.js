// @ts-check
/// <reference lib="dom" />
// Live updates: the account's event stream (GET /api/v1/events/stream), opened with a one-use
// ticket because an EventSource sends no Authorization header. An event reloads the view it
// concerns when that view is shown (a new key, application or message appears without a reload).
// A stream that ends (an hour, a restart, a revoked session) is opened anew from its last id.
// A part of the page's one script module (see dom.js and register.tsx).

import { $ } from "./dom.js";
import { api, session } from "./api.js";
import { LOADERS } from "./views.js";
import { refreshMessages } from "./messages.js";

/** Which view an event type concerns: the view reloads when it is shown. */
/** @type {[RegExp, string][]} */
const VIEW_OF_TYPE = [
  [/^api_key\./, "api-keys"],
  [/^(?:message\.created|application\.)/, "messages"],
  [/^task\.matched$/, "alerts"],
];

/** The event types the dashboard listens to (an EventSource dispatches by type). */
const EVENT_TYPES = [
  "api_key.created",
  "api_key.regenerated",
  "api_key.revoked",
  "api_key.expiring",
  "api_key.expired",
  "application.created",
  "application.accepted",
  "application.declined",
  "application.withdrawn",
  "message.created",
  "task.matched",
];

/** @type {EventSource | null} */
let source = null;
/** @type {string | null} */
let lastEventId = null;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let retry;
/** Events seen, for the status line (and the tests). */
let heard = 0;

const status = $("#live-status");

/** @param {string} text */
function say(text) {
  status.textContent = text;
}

/** @param {MessageEvent} event */
function onEvent(event) {
  lastEventId = event.lastEventId || lastEventId;
  heard++;
  status.dataset.heard = String(heard);
  for (const [pattern, view] of VIEW_OF_TYPE) {
    if (!pattern.test(event.type) || $(`#${view}-view`).hidden) continue;
    if (view === "messages") refreshMessages();
    else LOADERS[view]?.();
  }
}

/** Opens the stream for the signed-in session, after the last event seen when there is one. */
export async function startLive() {
  stopLive(false);
  if (!session.token) return;
  try {
    const { ticket } = await api("POST", "/api/v1/events/stream-tickets");
    if (!session.token) return;
    const url = new URL("/api/v1/events/stream", location.origin);
    url.searchParams.set("ticket", ticket);
    if (lastEventId) url.searchParams.set("lastEventId", lastEventId);
    const opened = new EventSource(url);
    source = opened;
    opened.onopen = () => say("Live: changes appear as they happen.");
    for (const type of EVENT_TYPES) opened.addEventListener(type, onEvent);
    // The browser reconnects by itself only with the same URL, whose ticket is used: a new one.
    opened.onerror = () => {
      if (source !== opened) return;
      opened.close();
      source = null;
      say("Reconnecting to live updates…");
      retry = setTimeout(() => startLive().catch(() => {}), 2000);
    };
  } catch (error) {
    // An id the log no longer holds: start afresh; anything else, try again shortly.
    if (/** @type {{ code?: string }} */ (error).code === "EVENT_ID_EXPIRED") lastEventId = null;
    if (!session.token) return;
    say("Live updates are unavailable; retrying…");
    retry = setTimeout(() => startLive().catch(() => {}), 5000);
  }
}

/**
 * Closes the stream (signing out forgets where it was).
 * @param {boolean} [forget]
 */
export function stopLive(forget = true) {
  clearTimeout(retry);
  source?.close();
  source = null;
  if (forget) {
    lastEventId = null;
    say("");
  }
}
