// @ts-check
/// <reference lib="dom" />
// The dashboard's webhooks view. A part of the page's one script module (see dom.js and
// register.tsx), so it uses the earlier parts' helpers.

import { $, $$input, $input, onRowAction } from "./dom.js";
import { api, ApiProblem, statusLines } from "./api.js";
import { $form, clearErrors, onSubmit } from "./forms.js";
import { dateFormat, el, fullFormat, timeElement } from "./format.js";
import { closeDialog, confirmAction, openDialog, showSecret } from "./dialogs.js";
import { LOADERS } from "./views.js";

/** @typedef {import("./api.js").Json} Json */

/** The endpoints as last loaded, and the one whose deliveries are shown. */
/** @type {Json[]} */
let hooks = [];
/** @type {Json} */
let deliveriesOf = null;

const hooksBody = $("#webhooks-body");
const hooksError = $("#webhooks-error");
const { announce: announceHooks, report: reportHooksError } = statusLines(
  $("#webhooks-status"),
  hooksError,
);

async function loadWebhooks() {
  try {
    hooks = await api("GET", "/v1/webhooks");
    renderWebhooks();
  } catch (error) {
    reportHooksError(error);
  }
}

LOADERS.webhooks = loadWebhooks;

const HOOK_ACTIONS = [
  { action: "test", label: "Send test" },
  { action: "deliveries", label: "Deliveries" },
  { action: "rotate", label: "Rotate secret" },
  { action: "toggle", label: "Disable" },
  { action: "delete", label: "Delete", danger: true },
];

/** @param {Json} hook */
function hookRow(hook) {
  const actions = HOOK_ACTIONS.map(({ action, label, danger }) => {
    const text = action === "toggle" && !hook.enabled ? "Enable" : label;
    return el("button", {
      type: "button",
      class: `button small${danger ? " ghost-danger" : ""}`,
      "data-action": action,
      "aria-label": `${text}: ${hook.url}`,
    }, [el("span", { text })]);
  });
  const status = hook.enabled
    ? el("span", { class: "badge ok", text: hook.failingSince ? "Failing" : "Enabled" })
    : el("div", { class: "stack" }, [
      el("span", { class: "badge", text: "Disabled" }),
      hook.disabledReason ? el("span", { class: "key-note", text: hook.disabledReason }) : null,
    ]);
  return el("tr", { "data-hook-id": hook.id, class: hook.enabled ? "active" : "expired" }, [
    el("td", { "data-label": "Endpoint" }, [
      el("div", {}, [
        el("code", { class: "key-value", text: hook.url }),
        hook.description ? el("span", { class: "key-note", text: hook.description }) : null,
      ]),
    ]),
    el("td", { "data-label": "Events" }, [
      el(
        "div",
        { class: "chips" },
        hook.events.map((/** @type {string} */ e) => el("span", { class: "chip", text: e })),
      ),
    ]),
    el("td", { "data-label": "Status" }, [status]),
    el("td", { "data-label": "Created", class: "nowrap" }, [
      timeElement(hook.createdAt, dateFormat.format(new Date(hook.createdAt))),
    ]),
    el("td", { class: "actions" }, [el("div", { class: "row-actions" }, actions)]),
  ]);
}

function renderWebhooks() {
  hooksBody.replaceChildren(...hooks.map(hookRow));
  $("#webhooks-empty").hidden = hooks.length > 0;
  $("#webhooks-table thead").hidden = hooks.length === 0;
}

$("#refresh-webhooks").addEventListener("click", async () => {
  await loadWebhooks();
  if (!hooksError.textContent) announceHooks("Endpoints refreshed.");
});

onRowAction(hooksBody, (button, row) => {
  const hook = hooks.find((h) => h.id === row.dataset.hookId);
  if (!hook) return;
  /** @type {Record<string, () => Promise<void>>} */
  const acts = {
    test: () => sendTest(hook),
    deliveries: () => openDeliveries(hook, button),
    rotate: () => rotate(hook, button),
    toggle: () => toggle(hook),
    delete: () => deleteHook(hook),
  };
  acts[button.dataset.action ?? ""]?.().catch(reportHooksError);
});

// ---- add an endpoint; its secret is shown once ----

const hookDialog = $("#webhook-dialog");
const hookForm = $form("#webhook-form");
const keyWarning = $("#secret-warning").innerHTML;

/**
 * @param {string} title
 * @param {string} value
 * @param {HTMLElement} returnTo
 */
function showSigningSecret(title, value, returnTo) {
  $("#secret-warning").textContent = "Copy it now and keep it where your receiver can read it: " +
    "it will not be shown again. If you lose it, rotate the secret.";
  showSecret(title, value, returnTo);
}

// The API key dialog's own wording comes back once the secret is put away.
$("#secret-dialog").addEventListener("close", () => {
  $("#secret-warning").innerHTML = keyWarning;
});

// "*" and single types exclude each other: ticking one clears the other kind.
hookForm.addEventListener("change", (event) => {
  const ticked = /** @type {HTMLInputElement} */ (event.target);
  if (ticked.name !== "events" || !ticked.checked) return;
  const all = ticked.value === "*";
  for (const box of $$input("input[name=events]", hookForm)) {
    if (box !== ticked && (box.value === "*") !== all) box.checked = false;
  }
});

$("#new-webhook").addEventListener("click", () => {
  hookForm.reset();
  clearErrors(hookForm);
  openDialog(hookDialog, $("#webhook-url"));
});

onSubmit(hookForm, async () => {
  /** @type {Record<string, unknown>} */
  const body = {
    url: $input("#webhook-url").value.trim(),
    events: $$input("input[name=events]:checked", hookForm).map((box) => box.value),
  };
  const description = $input("#webhook-description").value.trim();
  if (description) body.description = description;
  const created = await api("POST", "/v1/webhooks", body);
  closeDialog(hookDialog);
  showSigningSecret("Your endpoint's signing secret", created.secret, $("#new-webhook"));
  announceHooks(`Endpoint ${created.url} added.`);
  await loadWebhooks();
});

// ---- row actions ----

/** @param {Json} hook */
async function sendTest(hook) {
  await api("POST", `/v1/webhooks/${hook.id}/test`);
  announceHooks(`A webhook.test event is on its way to ${hook.url}.`);
}

/**
 * @param {Json} hook
 * @param {HTMLElement} button
 */
async function rotate(hook, button) {
  const sure = await confirmAction({
    title: "Rotate the signing secret?",
    message: "A new secret signs every delivery from now on. The current one keeps signing " +
      "beside it for 24 hours, so that you can update your receiver.",
    confirmLabel: "Rotate secret",
  });
  if (!sure) return;
  const rotated = await api("POST", `/v1/webhooks/${hook.id}/rotate-secret`);
  showSigningSecret("The endpoint's new signing secret", rotated.secret, button);
  announceHooks("Secret rotated; the previous one signs too for 24 hours.");
}

/** @param {Json} hook */
async function toggle(hook) {
  const updated = await api("PATCH", `/v1/webhooks/${hook.id}`, { enabled: !hook.enabled });
  announceHooks(`Endpoint ${updated.enabled ? "enabled" : "disabled"}.`);
  await loadWebhooks();
}

/** @param {Json} hook */
async function deleteHook(hook) {
  const sure = await confirmAction({
    title: "Delete this endpoint?",
    message: `${hook.url} will receive nothing more, not even pending retries.`,
    confirmLabel: "Delete endpoint",
  });
  if (!sure) return;
  await api("DELETE", `/v1/webhooks/${hook.id}`);
  announceHooks("Endpoint deleted.");
  await loadWebhooks();
}

// ---- deliveries ----

const deliveriesDialog = $("#deliveries-dialog");
const deliveriesBody = $("#deliveries-body");

/** @param {Json} d */
function deliveryRow(d) {
  const next = d.nextRetryAt && d.status === "pending"
    ? timeElement(d.nextRetryAt, fullFormat.format(new Date(d.nextRetryAt)))
    : el("span", { class: "muted-text", text: "—" });
  return el("tr", { "data-delivery-id": d.id }, [
    el("td", { "data-label": "Event" }, [
      el("div", {}, [
        el("code", { text: d.eventType }),
        el("span", { class: "key-note", text: d.eventId }),
      ]),
    ]),
    el("td", { "data-label": "Status" }, [
      el("span", { class: `badge${d.status === "succeeded" ? " ok" : ""}`, text: d.status }),
    ]),
    el("td", {
      "data-label": "Code",
      text: d.lastStatusCode === null ? "—" : String(d.lastStatusCode),
    }),
    el("td", {
      "data-label": "Duration",
      text: d.lastDurationMs === null ? "—" : `${d.lastDurationMs} ms`,
    }),
    el("td", { "data-label": "Attempts", text: String(d.attempts) }),
    el("td", { "data-label": "Next retry", class: "nowrap" }, [next]),
    el("td", { class: "actions" }, [
      el("button", {
        type: "button",
        class: "button small",
        "data-action": "resend",
        "aria-label": `Resend ${d.eventType} ${d.eventId}`,
      }, [el("span", { text: "Resend" })]),
    ]),
  ]);
}

/** Redraws the deliveries, with `note` (what was just done) in the status line. */
async function loadDeliveries(note = "") {
  const list = await api("GET", `/v1/webhooks/${deliveriesOf.id}/deliveries?limit=50`);
  deliveriesBody.replaceChildren(...list.map(deliveryRow));
  $("#deliveries-status").textContent = list.length
    ? note
    : "Nothing was sent to this endpoint yet.";
}

/**
 * @param {Json} hook
 * @param {HTMLElement} button
 */
async function openDeliveries(hook, button) {
  deliveriesOf = hook;
  $("#deliveries-endpoint").textContent = hook.url;
  await loadDeliveries();
  openDialog(deliveriesDialog, $("#refresh-deliveries"), button);
}

$("#refresh-deliveries").addEventListener("click", () => loadDeliveries().catch(reportHooksError));

deliveriesBody.addEventListener("click", async (event) => {
  const button = /** @type {Element} */ (event.target).closest("button[data-action=resend]");
  if (!button) return;
  const id = button.closest("tr")?.dataset.deliveryId;
  try {
    await api("POST", `/v1/webhooks/${deliveriesOf.id}/deliveries/${id}/resend`);
    await loadDeliveries("Sent again, with the same webhook-id.");
  } catch (error) {
    $("#deliveries-status").textContent = error instanceof ApiProblem ? error.text : String(error);
  }
});
