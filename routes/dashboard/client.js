// The dashboard's behaviour. It calls the same JSON API as any consumer and shows its answers;
// the session token lives in this module's memory only (never in storage or a cookie).

import { usageChart, usageTotals } from "./chart.js";

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

const session = { token: null, timer: 0, profile: null };
let keys = [];

/** An error answer from the API: its problem+json body, plus Retry-After when sent. */
class ApiProblem extends Error {
  constructor(status, body, retryAfter) {
    super(body?.detail ?? `The server answered ${status}`);
    this.status = status;
    this.code = body?.code ?? "";
    this.errors = Array.isArray(body?.errors) ? body.errors : [];
    this.retryAfter = retryAfter;
  }

  /** The detail, with when to retry for a rate limit. */
  get text() {
    const seconds = Number(this.retryAfter);
    if (this.status !== 429 || !(seconds > 0)) return this.message;
    const unit = seconds === 1 ? "second" : "seconds";
    return `${this.message.replace(/[.!?]?$/, ".")} Try again in ${seconds} ${unit}.`;
  }
}

const SESSION_ENDED = new Set(["TOKEN_INVALID", "TOKEN_MISSING"]);

/** Calls the API with the session token; answers the JSON body or throws an ApiProblem. */
async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (session.token) headers.Authorization = `Bearer ${session.token}`;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
    });
  } catch {
    throw new ApiProblem(0, { detail: "The service could not be reached. Check your connection." });
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  // A cursor-paged listing's next page travels in a header; the array carries it along.
  if (Array.isArray(data)) data.nextCursor = res.headers.get("X-Next-Cursor");
  if (res.ok) return data;
  const problem = new ApiProblem(res.status, data, res.headers.get("Retry-After"));
  if (session.token && res.status === 401 && SESSION_ENDED.has(problem.code)) {
    endSession("Your session has ended. Sign in again to continue.");
  }
  throw problem;
}

// ---- forms and their errors ----

function clearErrors(form) {
  for (const slot of $$("[data-error-for]", form)) slot.textContent = "";
  for (const control of $$("[aria-invalid]", form)) control.removeAttribute("aria-invalid");
  const formError = $("[data-form-error]", form);
  if (formError) formError.textContent = "";
}

/** The control a message slot describes: an input, a textarea, or a fieldset's first input. */
function controlFor(form, slot) {
  const described = $(`[aria-describedby~="${slot.id}"]`, form);
  if (described?.tagName === "FIELDSET") return $("input:not([disabled])", described);
  return described;
}

/**
 * Shows an API problem on a form: each `errors[]` entry next to the field its path names,
 * anything else (and a problem without `errors`) at the top of the form.
 * `describe(head, rest, message)` may reword an entry, e.g. to name a textarea's line.
 */
function showProblem(form, problem, describe = (_head, _rest, message) => message) {
  clearErrors(form);
  const slots = $$("[data-error-for]", form);
  const unplaced = [];
  let first = null;
  for (const entry of problem.errors ?? []) {
    const [head, ...rest] = String(entry.path).split(".");
    const slot = slots.find((s) => s.dataset.errorFor.split(" ").includes(head));
    if (!slot) {
      unplaced.push(`${entry.path}: ${entry.message}`);
      continue;
    }
    const text = describe(head, rest, sentence(entry.message));
    slot.textContent = slot.textContent ? `${slot.textContent}\n${text}` : text;
    const control = controlFor(form, slot);
    if (control && control.type !== "checkbox" && control.type !== "radio") {
      control.setAttribute("aria-invalid", "true");
    }
    first ??= control;
  }
  const formError = $("[data-form-error]", form);
  if (problem.errors?.length === 0 || unplaced.length > 0 || !first) {
    formError.textContent = [problem.text ?? problem.message, ...unplaced].join(" ");
    formError.scrollIntoView({ block: "nearest" });
  }
  first?.focus();
}

/** The API's messages start in lower case; beside a field they read as sentences. */
function sentence(message) {
  const text = String(message);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Runs a form's action with its submit button busy, so a double click sends once. */
function onSubmit(form, action) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = $("button[type=submit]", form);
    if (button.disabled) return;
    button.disabled = true;
    form.setAttribute("aria-busy", "true");
    try {
      clearErrors(form);
      await action();
    } catch (error) {
      if (error instanceof ApiProblem) showProblem(form, error, form.describeProblem);
      else throw error;
    } finally {
      button.disabled = false;
      form.removeAttribute("aria-busy");
    }
  });
}

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

// ---- dates ----

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
const fullFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: "always" });
const UNITS = [
  ["year", 31_536_000],
  ["month", 2_592_000],
  ["week", 604_800],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
];

/** "Just now", "2 minutes ago", "3 days ago". */
function relativeTime(iso) {
  const seconds = (Date.now() - Date.parse(iso)) / 1000;
  if (seconds < 60) return "Just now";
  const [unit, size] = UNITS.find(([, size]) => seconds >= size);
  return relativeFormat.format(-Math.floor(seconds / size), unit);
}

function timeElement(iso, text) {
  const time = document.createElement("time");
  time.dateTime = iso;
  time.title = fullFormat.format(new Date(iso));
  time.textContent = text;
  return time;
}

function isoDay(date) {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 10);
}

// ---- elements ----

function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of [children].flat()) if (child) node.append(child);
  return node;
}

// ---- dialogs ----

/** Opens a modal dialog, moves focus into it, and returns focus to `returnTo` on close. */
function openDialog(dialog, focusTarget, returnTo = document.activeElement) {
  dialog.returnFocusTo = returnTo instanceof HTMLElement && !returnTo.closest("dialog")
    ? returnTo
    : $("#new-key");
  dialog.showModal();
  (focusTarget ?? dialog).focus();
}

function closeDialog(dialog) {
  if (dialog.open) dialog.close();
}

/** Where focus goes back to: the opener, or its successor when the table was redrawn meanwhile. */
function focusBack(target) {
  if (target?.isConnected) return target;
  const row = target?.closest("tr[data-key-id], tr[data-hook-id]");
  const attribute = row?.dataset.keyId ? "data-key-id" : "data-hook-id";
  const again = row &&
    $(`tr[${attribute}="${row.getAttribute(attribute)}"] [data-action="${target.dataset.action}"]`);
  return again ?? $(".view:not([hidden]) .view-actions .primary") ?? $("#new-key");
}

for (const dialog of $$("dialog")) {
  dialog.addEventListener("click", (event) => {
    if (event.target.closest("[data-close]")) closeDialog(dialog);
  });
  // "close" fires after the fact; when another dialog has opened since, it keeps the focus.
  dialog.addEventListener("close", () => {
    const target = dialog.returnFocusTo;
    dialog.returnFocusTo = null;
    if (!session.token || $$("dialog").some((d) => d.open)) return;
    focusBack(target).focus();
  });
}

const confirmDialog = $("#confirm-dialog");

/** Asks before a destructive action; resolves true only on the confirm button. */
function confirmAction({ title, message, confirmLabel }) {
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
const secretInput = $("#secret-value");

function showSecret(title, value, returnTo) {
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

// ---- session ----

const authView = $("#auth-view");
const appView = $("#app-view");
const signInForm = $("#sign-in-form");
const signUpForm = $("#sign-up-form");

function showAuthForm(form, focus = true) {
  for (const f of [signInForm, signUpForm]) {
    f.hidden = f !== form;
    clearErrors(f);
  }
  if (focus) $("input", form).focus();
}

for (const button of $$("[data-show-form]")) {
  button.addEventListener("click", () => {
    $("#auth-notice").hidden = true;
    showAuthForm($(`#${button.dataset.showForm}`));
  });
}

async function startSession(login) {
  session.token = login.token;
  clearTimeout(session.timer);
  const remaining = Date.parse(login.expiresAt) - Date.now();
  // Past ~24.8 days setTimeout would fire at once; such a session needs no timer.
  if (remaining < 2 ** 31 - 1) {
    session.timer = setTimeout(
      () => endSession("Your session has expired. Sign in again to continue."),
      remaining,
    );
  }
  session.profile = await api("GET", "/v1/users/me");
  for (const input of $$("input[type=password]")) input.value = "";
  $("#account-email").textContent = session.profile.email;
  $("#account").hidden = false;
  authView.hidden = true;
  appView.hidden = false;
  if (!location.hash) history.replaceState(null, "", "#api-keys");
  await showView(false);
}

function endSession(notice) {
  session.token = null;
  session.profile = null;
  clearTimeout(session.timer);
  keys = [];
  for (const dialog of $$("dialog")) {
    dialog.returnFocusTo = null;
    closeDialog(dialog);
  }
  for (const body of $$("tbody")) body.replaceChildren();
  $("#account").hidden = true;
  appView.hidden = true;
  authView.hidden = false;
  showAuthForm(signInForm, false);
  const note = $("#auth-notice");
  note.textContent = notice;
  note.hidden = !notice;
  $("#sign-in-heading").setAttribute("tabindex", "-1");
  $("#sign-in-heading").focus();
}

onSubmit(signInForm, async () => {
  const login = await api("POST", "/v1/auth/token", {
    email: $("#sign-in-email").value,
    password: $("#sign-in-password").value,
  });
  $("#auth-notice").hidden = true;
  await startSession(login);
});

onSubmit(signUpForm, async () => {
  const account = {
    firstName: $("#sign-up-first-name").value,
    email: $("#sign-up-email").value,
    password: $("#sign-up-password").value,
  };
  const lastName = $("#sign-up-last-name").value.trim();
  if (lastName) account.lastName = lastName;
  await api("POST", "/v1/users", account);
  const login = await api("POST", "/v1/auth/token", {
    email: account.email,
    password: account.password,
  });
  $("#auth-notice").hidden = true;
  await startSession(login);
});

$("#sign-out").addEventListener("click", async () => {
  try {
    await api("POST", "/v1/auth/logout");
  } catch {
    // The session is dropped here either way; a failed logout only leaves it to expire.
  }
  endSession("You have signed out.");
});

// ---- views ----

const VIEWS = {
  "api-keys": "API Keys",
  "webhooks": "Webhooks",
  "security-log": "Security log",
  "profile": "Profile",
};
/** What fills each view when it is shown; the webhooks part of the script adds its own. */
const LOADERS = { "api-keys": () => loadKeys(), "profile": () => renderProfile() };

async function showView(userNavigated) {
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

// ---- keys table ----

const keysBody = $("#keys-body");
const keysStatus = $("#keys-status");
const keysError = $("#keys-error");

function announce(message) {
  keysError.textContent = "";
  keysStatus.textContent = message;
}

function reportError(error) {
  if (!(error instanceof ApiProblem)) throw error;
  if (!session.token) return;
  keysStatus.textContent = "";
  keysError.textContent = error.text;
}

async function loadKeys() {
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
      el("div", { class: "chips" }, key.scopes.map((s) => el("span", { class: "chip", text: s }))),
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

/** An active key that expires within 7 days. */
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
    time.textContent = relativeTime(time.dateTime);
  }
}, 30_000);

$("#refresh-keys").addEventListener("click", async () => {
  await loadKeys();
  if (!keysError.textContent) announce("Keys refreshed.");
});

keysBody.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-action]");
  if (!button) return;
  const key = keys.find((k) => k.id === button.closest("tr").dataset.keyId);
  if (!key) return;
  if (button.dataset.action === "usage") openUsage(key, button);
  if (button.dataset.action === "edit") openEdit(key);
  if (button.dataset.action === "regenerate") regenerate(key, button);
  if (button.dataset.action === "revoke") revoke(key);
});

// ---- create ----

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

// ---- usage ----

const usageDialog = $("#usage-dialog");
const RANGE_WORDS = { "24h": "24 hours", "7d": "7 days", "90d": "90 days" };
let usageKey = null;

function openUsage(key, button) {
  usageKey = key;
  $("#usage-dialog-title").textContent = `Usage of “${key.name}”`;
  $("input[name=usage-range][value='24h']", usageDialog).checked = true;
  openDialog(usageDialog, $("input[name=usage-range]:checked", usageDialog), button);
  loadUsage();
}

for (const radio of $$("input[name=usage-range]", usageDialog)) {
  radio.addEventListener("change", loadUsage);
}

async function loadUsage() {
  const key = usageKey;
  const range = $("input[name=usage-range]:checked", usageDialog).value;
  const chart = $("#usage-chart");
  chart.setAttribute("aria-busy", "true");
  $("#usage-error").textContent = "";
  try {
    const usage = await api("GET", `/api/v1/keys/${key.id}/usage?range=${range}`);
    if (key !== usageKey) return;
    const sums = usageTotals(usage.series);
    const all = sums.ok + sums.clientError + sums.rateLimited + sums.serverError;
    const summary = `${all} ${all === 1 ? "request" : "requests"} in the last ${
      RANGE_WORDS[range]
    }: ${sums.ok} 2xx, ${sums.clientError} 4xx, ${sums.rateLimited} 429, ${sums.serverError} 5xx.`;
    $("#usage-totals").textContent = summary;
    const label = `Requests per ${usage.bucket}. ${summary}`;
    chart.replaceChildren(usageChart(usage, label, chart.clientWidth || 720));
    const when = usage.bucket === "day" ? dateFormat : fullFormat;
    const used = usage.series.filter((p) => p.ok + p.clientError + p.rateLimited + p.serverError);
    const none = el("tr", {}, [el("td", { colspan: "5", text: "No requests in this period." })]);
    $("#usage-table tbody").replaceChildren(
      ...(used.length === 0 ? [none] : used.map((p) =>
        el("tr", {}, [
          el("th", { scope: "row", text: when.format(new Date(p.start)) }),
          ...[p.ok, p.clientError, p.rateLimited, p.serverError].map((n) =>
            el("td", { text: String(n) })
          ),
        ])
      )),
    );
  } catch (error) {
    if (!(error instanceof ApiProblem)) throw error;
    $("#usage-error").textContent = error.text;
  } finally {
    chart.setAttribute("aria-busy", "false");
  }
}

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
