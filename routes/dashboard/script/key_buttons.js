// @ts-check
/// <reference lib="dom" />
// The API Keys view's buttons: refresh, and each row's actions sent to the usage and key dialogs.
// A part of the page's one script module (see dom.js), after the table and the dialogs it joins.

import { $, onRowAction } from "./dom.js";
import { announce, keys, keysBody, keysError, loadKeys } from "./keys_table.js";
import { openEdit, regenerate, revoke } from "./key_actions.js";
import { openUsage } from "./key_usage.js";

$("#refresh-keys").addEventListener("click", async () => {
  await loadKeys();
  if (!keysError.textContent) announce("Keys refreshed.");
});

onRowAction(keysBody, (button, row) => {
  const key = keys.find((k) => k.id === row.dataset.keyId);
  if (!key) return;
  if (button.dataset.action === "usage") openUsage(key, button);
  if (button.dataset.action === "edit") openEdit(key);
  if (button.dataset.action === "regenerate") regenerate(key, button);
  if (button.dataset.action === "revoke") revoke(key);
});
