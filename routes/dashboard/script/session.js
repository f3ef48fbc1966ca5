// @ts-check
/// <reference lib="dom" />
// Signing in, signing up and out: the session starts and ends here. The last part of the page's
// one script module (see dom.js): it starts the views and the live stream, so it imports them, and
// it registers endSession with api.js, which calls it when the API refuses the session's token.

import { $, $$, $$input, $input } from "./dom.js";
import { api, onSessionEnded, session } from "./api.js";
import { $form, clearErrors, onSubmit } from "./forms.js";
import { closeDialog } from "./dialogs.js";
import { showView } from "./views.js";
import { startLive, stopLive } from "./live.js";
import { forgetKeys } from "./keys_table.js";

const authView = $("#auth-view");
const appView = $("#app-view");
const signInForm = $form("#sign-in-form");
const signUpForm = $form("#sign-up-form");

/**
 * @param {HTMLElement} form
 * @param {boolean} [focus]
 */
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

/** @param {{ token: string, expiresAt: string }} login */
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
  for (const input of $$input("input[type=password]")) input.value = "";
  $("#account-email").textContent = session.profile.email;
  $("#account").hidden = false;
  authView.hidden = true;
  appView.hidden = false;
  if (!location.hash) history.replaceState(null, "", "#api-keys");
  startLive();
  await showView(false);
}

/** @param {string} [notice] */
export function endSession(notice) {
  session.token = null;
  stopLive();
  session.profile = null;
  clearTimeout(session.timer);
  forgetKeys();
  for (const dialog of $$("dialog")) {
    /** @type {import("./dialogs.js").Dialog} */ (dialog).returnFocusTo = null;
    closeDialog(dialog);
  }
  for (const body of $$("tbody")) body.replaceChildren();
  $("#account").hidden = true;
  appView.hidden = true;
  authView.hidden = false;
  showAuthForm(signInForm, false);
  const note = $("#auth-notice");
  note.textContent = notice ?? "";
  note.hidden = !notice;
  $("#sign-in-heading").setAttribute("tabindex", "-1");
  $("#sign-in-heading").focus();
}
onSessionEnded(endSession);

onSubmit(signInForm, async () => {
  const login = await api("POST", "/v1/auth/token", {
    email: $input("#sign-in-email").value,
    password: $input("#sign-in-password").value,
  });
  $("#auth-notice").hidden = true;
  await startSession(login);
});

onSubmit(signUpForm, async () => {
  /** @type {Record<string, string>} */
  const account = {
    firstName: $input("#sign-up-first-name").value,
    email: $input("#sign-up-email").value,
    password: $input("#sign-up-password").value,
  };
  const lastName = $input("#sign-up-last-name").value.trim();
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
