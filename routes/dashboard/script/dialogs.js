// @ts-check
/// <reference lib="dom" />
// The dashboard's dialogs: opening with focus and giving it back, the confirmation asked before a
// destructive action, and the secret shown once. A part of the page's one script module (see
// dom.js).

import { $, $$ } from "./dom.js";
import { session } from "./api.js";

/**
 * A `<dialog>` of the page, with where focus goes back to when it closes.
 * @typedef {HTMLDialogElement & { returnFocusTo?: HTMLElement | null }} Dialog
 */

/**
 * The page's dialog `element` (found with `$`) as a dialog.
 * @param {HTMLElement} element
 * @returns {Dialog}
 */
const asDialog = (element) => /** @type {Dialog} */ (element);

/**
 * Opens a modal dialog, moves focus into it, and returns focus to `returnTo` on close.
 * @param {HTMLElement} element
 * @param {HTMLElement | null} [focusTarget]
 * @param {Element | null} [returnTo]
 */
export function openDialog(element, focusTarget, returnTo = document.activeElement) {
  const dialog = asDialog(element);
  dialog.returnFocusTo = returnTo instanceof HTMLElement && !returnTo.closest("dialog")
    ? returnTo
    : $("#new-key");
  dialog.showModal();
  (focusTarget ?? dialog).focus();
}

/** @param {HTMLElement} element */
export function closeDialog(element) {
  const dialog = asDialog(element);
  if (dialog.open) dialog.close();
}

/**
 * Where focus goes back to: the opener, or its successor when the table was redrawn meanwhile.
 * @param {HTMLElement | null | undefined} target
 */
function focusBack(target) {
  if (target?.isConnected) return target;
  const row = /** @type {HTMLElement | null | undefined} */ (
    target?.closest("tr[data-key-id], tr[data-hook-id]")
  );
  const attribute = row?.dataset.keyId ? "data-key-id" : "data-hook-id";
  const again = row &&
    $(`tr[${attribute}="${
      row.getAttribute(attribute)
    }"] [data-action="${target?.dataset.action}"]`);
  return again ?? $(".view:not([hidden]) .view-actions .primary") ?? $("#new-key");
}

for (const dialog of $$("dialog").map(asDialog)) {
  dialog.addEventListener("click", (event) => {
    if (/** @type {Element} */ (event.target).closest("[data-close]")) closeDialog(dialog);
  });
  // "close" fires after the fact; when another dialog has opened since, it keeps the focus.
  dialog.addEventListener("close", () => {
    const target = dialog.returnFocusTo;
    dialog.returnFocusTo = null;
    if (!session.token || $$("dialog").map(asDialog).some((d) => d.open)) return;
    focusBack(target).focus();
  });
}

const confirmDialog = asDialog($("#confirm-dialog"));

/**
 * Asks before a destructive action; resolves true only on the confirm button.
 * @param {{ title: string, message: string, confirmLabel: string }} question
 * @returns {Promise<boolean>}
 */
export function confirmAction({ title, message, confirmLabel }) {
  $("#confirm-dialog-title").textContent = title;
  $("#confirm-message").textContent = message;
  $("#confirm-ok").textContent = confirmLabel;
  return new Promise((resolve) => {
    let answer = false;
    const ok = () => {
      answer = true;
      confirmDialog.close();
    };
    const cancel = () => confirmDialog.close();
    $("#confirm-ok").addEventListener("click", ok, { once: true });
    $("#confirm-cancel").addEventListener("click", cancel, { once: true });
    confirmDialog.addEventListener("close", () => {
      $("#confirm-ok").removeEventListener("click", ok);
      $("#confirm-cancel").removeEventListener("click", cancel);
      resolve(answer);
    }, { once: true });
    openDialog(confirmDialog, $("#confirm-cancel"));
  });
}

// ---- the secret, shown once ----

const secretDialog = $("#secret-dialog");
const secretInput = /** @type {HTMLInputElement} */ ($("#secret-value"));

/**
 * Shows a secret once (a new key's value, a webhook's signing secret).
 * @param {string} title
 * @param {string} value
 * @param {Element | null} [returnTo]
 */
export function showSecret(title, value, returnTo) {
  $("#secret-dialog-title").textContent = title;
  $("#copy-status").textContent = "";
  secretInput.value = value;
  openDialog(secretDialog, secretInput, returnTo);
  secretInput.select();
}

// The value must not outlive the dialog: it is erased from the page on close.
secretDialog.addEventListener("close", () => {
  secretInput.value = "";
  $("#secret-grace").hidden = true;
  $("#copy-status").textContent = "";
});

$("#copy-secret").addEventListener("click", async () => {
  const status = $("#copy-status");
  try {
    await navigator.clipboard.writeText(secretInput.value);
    status.textContent = "Copied to the clipboard.";
  } catch {
    secretInput.select();
    const copied = document.execCommand?.("copy");
    status.textContent = copied
      ? "Copied to the clipboard."
      : "Copying is blocked here: the key is selected, press Ctrl+C (⌘C on a Mac).";
  }
});
