// Signing in, signing up and out: the session starts and ends here. A part of the page's one
// script module (see api.js).

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
