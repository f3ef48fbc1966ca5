// @ts-check
/// <reference lib="dom" />
// The API Keys view's create, edit, regenerate and revoke dialogs. A part of the page's one script
// module (see dom.js).

import { $, $$input, $input } from "./dom.js";
import { api } from "./api.js";
import { $form, clearErrors, onSubmit } from "./forms.js";
import { fullFormat, isoDay } from "./format.js";
import { closeDialog, confirmAction, openDialog, showSecret } from "./dialogs.js";
import { announce, loadKeys } from "./keys_table.js";

/** @typedef {import("./api.js").Json} Json */

/**
 * Textarea lines as list entries, remembering each entry's line for error messages.
 * @param {HTMLElement} textarea
 */
function linesOf(textarea) {
  /** @type {string[]} */
  const entries = [];
  /** @type {number[]} */
  const lineNumbers = [];
  /** @type {HTMLTextAreaElement} */ (textarea).value.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    entries.push(line.trim());
    lineNumbers.push(i + 1);
  });
  return { entries, lineNumbers };
}

/**
 * Names the textarea line an `ipWhitelist.N` error is about.
 * @param {HTMLElement} textarea
 * @returns {import("./forms.js").Describe}
 */
function whitelistProblems(textarea) {
  return (head, rest, message) => {
    if (head !== "ipWhitelist" || rest.length === 0) return message;
    const line = linesOf(textarea).lineNumbers[Number(rest[0])];
    return line ? `Line ${line}: ${message}` : message;
  };
}

const createDialog = $("#create-dialog");
const createForm = $form("#create-form");
const expiryDate = $input("#create-expiry-date");
const expiryDateField = $("#create-expiry-date-field");
createForm.describeProblem = whitelistProblems($("#create-whitelist"));

$("#new-key").addEventListener("click", () => {
  createForm.reset();
  clearErrors(createForm);
  const day = 86_400_000;
  expiryDate.min = isoDay(new Date(Date.now() + day));
  expiryDate.max = isoDay(new Date(Date.now() + 365 * day));
  expiryDateField.hidden = true;
  openDialog(createDialog, $("#create-name"));
});

for (const radio of $$input("input[name=expiry]", createForm)) {
  radio.addEventListener("change", () => {
    expiryDateField.hidden = radio.value !== "date" || !radio.checked;
  });
}

onSubmit(createForm, async () => {
  /** @type {Record<string, unknown>} */
  const body = {
    name: $input("#create-name").value,
    scopes: $$input("input[name=scopes]:checked", createForm).map((box) => box.value),
    ipWhitelist: linesOf($("#create-whitelist")).entries,
  };
  const expiry = $input("input[name=expiry]:checked", createForm).value;
  if (expiry === "date") {
    // The key expires as the chosen day begins, in the user's time zone.
    body.expiresAt = expiryDate.value ? new Date(`${expiryDate.value}T00:00:00`).toISOString() : "";
  } else {
    body.expiresInDays = Number(expiry);
  }
  const created = await api("POST", "/api/v1/keys", body);
  closeDialog(createDialog);
  showSecret("Your new API key", created.key, $("#new-key"));
  announce(`Key “${created.name}” created.`);
  await loadKeys();
});

// ---- edit, regenerate, revoke ----

const editDialog = $("#edit-dialog");
const editForm = $form("#edit-form");
editForm.describeProblem = whitelistProblems($("#edit-whitelist"));
/** @type {Json} */
let editing = null;

/** @param {Json} key */
export function openEdit(key) {
  editing = key;
  clearErrors(editForm);
  $("#edit-dialog-title").textContent = `Edit “${key.name}”`;
  $input("#edit-name").value = key.name;
  $input("#edit-whitelist").value = key.ipWhitelist.join("\n");
  openDialog(editDialog, $("#edit-whitelist"));
}

onSubmit(editForm, async () => {
  const updated = await api("PATCH", `/api/v1/keys/${editing.id}`, {
    name: $input("#edit-name").value,
    ipWhitelist: linesOf($("#edit-whitelist")).entries,
  });
  closeDialog(editDialog);
  announce(`Key “${updated.name}” updated.`);
  await loadKeys();
});

const regenerateDialog = $("#regenerate-dialog");
const regenerateForm = $form("#regenerate-form");
/** @type {Record<string, number>} */
const GRACE_MS = { now: 0, "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000 };
/** @type {{ key: Json, button: HTMLElement } | null} */
let regenerating = null;

/** Says, under the choices, when the current value would stop with the chosen grace. */
function showDeadline() {
  const grace = $input("input[name=grace]:checked", regenerateForm).value;
  $("#regenerate-deadline").textContent = grace === "now"
    ? "Programs using the current value are refused as soon as you confirm."
    : `Both values work until about ${fullFormat.format(new Date(Date.now() + GRACE_MS[grace]))}.`;
}

for (const radio of $$input("input[name=grace]", regenerateForm)) {
  radio.addEventListener("change", showDeadline);
}

/**
 * @param {Json} key
 * @param {HTMLElement} button
 */
export function regenerate(key, button) {
  regenerating = { key, button };
  regenerateForm.reset();
  clearErrors(regenerateForm);
  $("#regenerate-dialog-title").textContent = `Regenerate “${key.name}”?`;
  showDeadline();
  openDialog(regenerateDialog, $("#regenerate-cancel"), button);
}

onSubmit(regenerateForm, async () => {
  if (!regenerating) return;
  const { key, button } = regenerating;
  const expireCurrentIn = $input("input[name=grace]:checked", regenerateForm).value;
  const renewed = await api("POST", `/api/v1/keys/${key.id}/regenerate`, { expireCurrentIn });
  closeDialog(regenerateDialog);
  const note = $("#secret-grace");
  if (renewed.previousExpiresAt) {
    const until = fullFormat.format(new Date(renewed.previousExpiresAt));
    note.textContent = `The old value keeps working until ${until}; after that only this one does.`;
    note.hidden = false;
  } else {
    note.hidden = true;
  }
  showSecret("Your regenerated API key", renewed.key, button);
  announce(
    renewed.previousExpiresAt
      ? `Key “${renewed.name}” regenerated; the old value works until ${
        fullFormat.format(new Date(renewed.previousExpiresAt))
      }.`
      : `Key “${renewed.name}” regenerated; the old value no longer works.`,
  );
  await loadKeys();
});

/** @param {Json} key */
export async function revoke(key) {
  const sure = await confirmAction({
    title: `Revoke “${key.name}”?`,
    message: "Programs using this key will be refused at once. This cannot be undone.",
    confirmLabel: "Revoke key",
  });
  if (!sure) return;
  try {
    await api("DELETE", `/api/v1/keys/${key.id}`);
    announce(`Key “${key.name}” revoked.`);
    await loadKeys();
  } catch (error) {
    reportError(error);
  }
}
