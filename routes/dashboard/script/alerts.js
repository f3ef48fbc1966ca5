// @ts-check
/// <reference lib="dom" />
// The dashboard's task alerts view. A part of the page's one script module (see dom.js and
// register.tsx), so it uses the earlier parts' helpers.

import { $, $input, onRowAction } from "./dom.js";
import { api, ApiProblem, statusLines } from "./api.js";
import { $form, clearErrors, onSubmit } from "./forms.js";
import { dateFormat, el, timeElement } from "./format.js";
import { closeDialog, confirmAction, openDialog } from "./dialogs.js";
import { LOADERS } from "./views.js";

/** @typedef {import("./api.js").Json} Json */

/** The alerts as last loaded. */
/** @type {Json[]} */
let alertList = [];

const alertsBody = $("#alerts-body");
const alertsError = $("#alerts-error");
const { announce: announceAlerts, report: reportAlertsError } = statusLines(
  $("#alerts-status"),
  alertsError,
);

async function loadAlerts() {
  try {
    alertList = await api("GET", "/api/v1/alerts");
    renderAlerts();
  } catch (error) {
    reportAlertsError(error);
  }
}

LOADERS.alerts = loadAlerts;

const FILTER_LABELS = {
  search: "words",
  payment: "payment",
  cityName: "city",
  regionName: "region",
  countryCode: "country",
  minBudget: "min budget",
};

/**
 * The filters as short chips: the circle as one.
 * @param {Json} filters
 */
function filterChips(filters) {
  const chips = Object.entries(FILTER_LABELS)
    .filter(([name]) => filters[name] !== undefined)
    .map(([name, label]) => `${label}: ${filters[name]}`);
  if (filters.radiusKm !== undefined) {
    chips.push(`within ${filters.radiusKm} km of ${filters.latitude}, ${filters.longitude}`);
  }
  return el("div", { class: "chips" }, chips.map((text) => el("span", { class: "chip", text })));
}

const ALERT_ACTIONS = [
  { action: "matches", label: "Matches" },
  { action: "toggle", label: "Disable" },
  { action: "delete", label: "Delete", danger: true },
];

/** @param {Json} alert */
function alertRow(alert) {
  const actions = ALERT_ACTIONS.map(({ action, label, danger }) => {
    const text = action === "toggle" && !alert.enabled ? "Enable" : label;
    return el("button", {
      type: "button",
      class: `button small${danger ? " ghost-danger" : ""}`,
      "data-action": action,
      "aria-label": `${text}: ${alert.name}`,
    }, [el("span", { text })]);
  });
  return el("tr", { "data-alert-id": alert.id, class: alert.enabled ? "active" : "expired" }, [
    el("td", { "data-label": "Name", text: alert.name }),
    el("td", { "data-label": "Filters" }, [filterChips(alert.filters)]),
    el("td", { "data-label": "Status" }, [
      el("span", {
        class: `badge${alert.enabled ? " ok" : ""}`,
        text: alert.enabled ? "Enabled" : "Disabled",
      }),
    ]),
    el("td", { "data-label": "Created", class: "nowrap" }, [
      timeElement(alert.createdAt, dateFormat.format(new Date(alert.createdAt))),
    ]),
    el("td", { class: "actions" }, [el("div", { class: "row-actions" }, actions)]),
  ]);
}

function renderAlerts() {
  alertsBody.replaceChildren(...alertList.map(alertRow));
  $("#alerts-empty").hidden = alertList.length > 0;
  $("#alerts-table thead").hidden = alertList.length === 0;
}

$("#refresh-alerts").addEventListener("click", async () => {
  await loadAlerts();
  if (!alertsError.textContent) announceAlerts("Alerts refreshed.");
});

onRowAction(alertsBody, (button, row) => {
  const alert = alertList.find((a) => a.id === row.dataset.alertId);
  if (!alert) return;
  /** @type {Record<string, () => Promise<void>>} */
  const acts = {
    matches: () => openMatches(alert, button),
    toggle: () => toggleAlert(alert),
    delete: () => deleteAlert(alert),
  };
  acts[button.dataset.action ?? ""]?.().catch(reportAlertsError);
});

// ---- add an alert ----

const alertDialog = $("#alert-dialog");
const alertForm = $form("#alert-form");

const FILTER_FIELDS = {
  search: "#alert-search",
  payment: "#alert-payment",
  cityName: "#alert-city",
  countryCode: "#alert-country",
  latitude: "#alert-latitude",
  longitude: "#alert-longitude",
  radiusKm: "#alert-radius",
  minBudget: "#alert-min-budget",
};
const NUMBERS = new Set(["latitude", "longitude", "radiusKm", "minBudget"]);

$("#new-alert").addEventListener("click", () => {
  alertForm.reset();
  clearErrors(alertForm);
  openDialog(alertDialog, $("#alert-name"));
});

onSubmit(alertForm, async () => {
  /** @type {Record<string, string | number>} */
  const filters = {};
  for (const [name, selector] of Object.entries(FILTER_FIELDS)) {
    const value = $input(selector).value.trim();
    if (value === "") continue;
    filters[name] = NUMBERS.has(name) && Number.isFinite(Number(value)) ? Number(value) : value;
  }
  try {
    const created = await api("POST", "/api/v1/alerts", {
      name: $input("#alert-name").value.trim(),
      filters,
    });
    closeDialog(alertDialog);
    announceAlerts(`Alert ${created.name} added.`);
    await loadAlerts();
  } catch (error) {
    // "filters.cityName" belongs beside the City field: its path loses the "filters." head.
    if (error instanceof ApiProblem && error.errors) {
      error.errors = error.errors.map((e) => ({
        ...e,
        path: String(e.path).replace(/^filters\.(?=\w)/, ""),
      }));
    }
    throw error;
  }
});

// ---- row actions ----

/** @param {Json} alert */
async function toggleAlert(alert) {
  const updated = await api("PATCH", `/api/v1/alerts/${alert.id}`, { enabled: !alert.enabled });
  announceAlerts(`Alert ${updated.enabled ? "enabled" : "disabled"}.`);
  await loadAlerts();
}

/** @param {Json} alert */
async function deleteAlert(alert) {
  const sure = await confirmAction({
    title: "Delete this alert?",
    message: `${alert.name} will match no more tasks, and its list of matches goes with it.`,
    confirmLabel: "Delete alert",
  });
  if (!sure) return;
  await api("DELETE", `/api/v1/alerts/${alert.id}`);
  announceAlerts("Alert deleted.");
  await loadAlerts();
}

// ---- matches ----

const matchesDialog = $("#alert-matches-dialog");

/** @param {Json} task */
function matchRow(task) {
  const where = task.distanceKm === undefined
    ? task.location.name
    : `${task.location.name} (${task.distanceKm} km)`;
  return el("tr", {}, [
    el("td", { "data-label": "Task", text: task.title }),
    el("td", { "data-label": "Budget", text: `${task.budget} ${task.currency}` }),
    el("td", { "data-label": "Where", text: where }),
    el("td", { "data-label": "Published", class: "nowrap" }, [
      timeElement(task.createdAt, dateFormat.format(new Date(task.createdAt))),
    ]),
  ]);
}

/**
 * @param {Json} alert
 * @param {HTMLElement} button
 */
async function openMatches(alert, button) {
  const list = await api("GET", `/api/v1/alerts/${alert.id}/matches?limit=50`);
  $("#alert-matches-name").textContent = alert.name;
  $("#alert-matches-body").replaceChildren(...list.map(matchRow));
  $("#alert-matches-status").textContent = list.length
    ? ""
    : "No published task has matched this alert yet.";
  openDialog(matchesDialog, matchesDialog.querySelector("[data-close]"), button);
}
