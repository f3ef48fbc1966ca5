// The API Keys view's create, edit, regenerate and revoke dialogs. A part of the page's one script
// module (see api.js).
// Its names are used by the later parts, which the linter, reading one file, cannot see.
// deno-lint-ignore-file no-unused-vars

/** Textarea lines as list entries, remembering each entry's line for error messages. */
function linesOf(textarea) {
  const entries = [];
  const lineNumbers = [];
  textarea.value.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    entries.push(line.trim());
    lineNumbers.push(i + 1);
  });
  return { entries, lineNumbers };
}

/** Names the textarea line an `ipWhitelist.N` error is about. */
function whitelistProblems(textarea) {
  return (head, rest, message) => {
    if (head !== "ipWhitelist" || rest.length === 0) return message;
    const line = linesOf(textarea).lineNumbers[Number(rest[0])];
    return line ? `Line ${line}: ${message}` : message;
  };
}

const createDialog = $("#create-dialog");
const createForm = $("#create-form");
const expiryDate = $("#create-expiry-date");
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

for (const radio of $$("input[name=expiry]", createForm)) {
  radio.addEventListener("change", () => {
    expiryDateField.hidden = radio.value !== "date" || !radio.checked;
  });
}

onSubmit(createForm, async () => {
  const body = {
    name: $("#create-name").value,
    scopes: $$("input[name=scopes]:checked", createForm).map((box) => box.value),
    ipWhitelist: linesOf($("#create-whitelist")).entries,
  };
  const expiry = $("input[name=expiry]:checked", createForm).value;
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
const editForm = $("#edit-form");
editForm.describeProblem = whitelistProblems($("#edit-whitelist"));
let editing = null;

function openEdit(key) {
  editing = key;
  clearErrors(editForm);
  $("#edit-dialog-title").textContent = `Edit “${key.name}”`;
  $("#edit-name").value = key.name;
  $("#edit-whitelist").value = key.ipWhitelist.join("\n");
  openDialog(editDialog, $("#edit-whitelist"));
}

onSubmit(editForm, async () => {
  const updated = await api("PATCH", `/api/v1/keys/${editing.id}`, {
    name: $("#edit-name").value,
    ipWhitelist: linesOf($("#edit-whitelist")).entries,
  });
  closeDialog(editDialog);
  announce(`Key “${updated.name}” updated.`);
  await loadKeys();
});

const regenerateDialog = $("#regenerate-dialog");
const regenerateForm = $("#regenerate-form");
const GRACE_MS = { now: 0, "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000 };
let regenerating = null;

/** Says, under the choices, when the current value would stop with the chosen grace. */
function showDeadline() {
  const grace = $("input[name=grace]:checked", regenerateForm).value;
  $("#regenerate-deadline").textContent = grace === "now"
    ? "Programs using the current value are refused as soon as you confirm."
    : `Both values work until about ${fullFormat.format(new Date(Date.now() + GRACE_MS[grace]))}.`;
}

for (const radio of $$("input[name=grace]", regenerateForm)) {
  radio.addEventListener("change", showDeadline);
}

function regenerate(key, button) {
  regenerating = { key, button };
  regenerateForm.reset();
  clearErrors(regenerateForm);
  $("#regenerate-dialog-title").textContent = `Regenerate “${key.name}”?`;
  showDeadline();
  openDialog(regenerateDialog, $("#regenerate-cancel"), button);
}

onSubmit(regenerateForm, async () => {
  const { key, button } = regenerating;
  const expireCurrentIn = $("input[name=grace]:checked", regenerateForm).value;
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

async function revoke(key) {
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
