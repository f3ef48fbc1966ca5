/**
 * The dashboard's HTML shell, rendered on the server with Hono's JSX: sign-in and sign-up forms,
 * Settings → Developer → API Keys (Webhooks and Security log in webhooks_page.tsx), and the
 * dialogs. The data arrives later from the JSON API.
 */
import {
  CreateWebhookDialog,
  DeliveriesDialog,
  SecurityLogView,
  WebhooksView,
} from "./webhooks_page.tsx";
import { type Scope, SCOPES } from "../../domain/auth.ts";
import { MAX_ACTIVE_KEYS } from "../../domain/api_key.ts";
import { Breadcrumb, Dialog, Field, FormError } from "./parts.tsx";
import { RegenerateDialog, UsageDialog } from "./key_dialogs.tsx";

/** What each scope lets a key do, as API.md section 3 puts it. */
const SCOPE_HINTS: Record<Scope, string> = {
  "tasks:read": "List and read tasks",
  "tasks:write": "Create, edit and delete tasks",
  "profile:read": "Read user profiles",
  "profile:write": "Update your profile",
  "projects:read": "List and read projects",
  "projects:write": "Create, edit and delete projects",
  "webhooks:read": "List webhook endpoints and their deliveries",
  "webhooks:write": "Add, change, test and delete webhook endpoints",
  "applications:read": "List applications to your tasks and your own",
  "applications:write": "Apply to tasks; accept, decline or withdraw applications",
};

const EXPIRY_DAYS = [7, 30, 90, 365] as const;
const DEFAULT_EXPIRY_DAYS = 30;

export interface PageAssets {
  script: string;
  style: string;
}

function AuthView() {
  return (
    <section id="auth-view" class="auth" aria-label="Sign in or create an account">
      <div class="card auth-card">
        <form id="sign-in-form" method="post" novalidate aria-labelledby="sign-in-heading">
          <h1 id="sign-in-heading" class="auth-title">Sign in</h1>
          <p class="muted">Manage your account and API keys.</p>
          <p class="notice" id="auth-notice" role="status" hidden></p>
          <FormError id="sign-in-error" />
          <Field
            id="sign-in-email"
            label="Email"
            error="email"
            type="email"
            autocomplete="username"
          />
          <Field
            id="sign-in-password"
            label="Password"
            error="password"
            type="password"
            autocomplete="current-password"
          />
          <button type="submit" class="button primary wide">Sign in</button>
          <p class="switch">
            New here?{" "}
            <button type="button" class="link" data-show-form="sign-up-form">
              Create an account
            </button>
          </p>
        </form>
        <form id="sign-up-form" method="post" novalidate aria-labelledby="sign-up-heading" hidden>
          <h1 id="sign-up-heading" class="auth-title">Create an account</h1>
          <p class="muted">It takes a minute; you can create API keys right after.</p>
          <FormError id="sign-up-error" />
          <div class="row">
            <Field
              id="sign-up-first-name"
              label="First name"
              error="firstName"
              autocomplete="given-name"
            />
            <Field
              id="sign-up-last-name"
              label="Last name"
              optional
              error="lastName"
              autocomplete="family-name"
            />
          </div>
          <Field id="sign-up-email" label="Email" error="email" type="email" autocomplete="email" />
          <Field
            id="sign-up-password"
            label="Password"
            error="password"
            type="password"
            autocomplete="new-password"
            hint="8 to 128 characters."
          />
          <button type="submit" class="button primary wide">Create account</button>
          <p class="switch">
            Already have an account?{" "}
            <button type="button" class="link" data-show-form="sign-in-form">Sign in</button>
          </p>
        </form>
      </div>
    </section>
  );
}

function SideNav() {
  return (
    <nav class="sidenav" aria-label="Settings">
      <p class="sidenav-title">Settings</p>
      <ul>
        <li>
          <a href="#profile" data-view="profile">Profile</a>
        </li>
        <li>
          <span class="sidenav-group">Developer</span>
          <ul>
            <li>
              <a href="#api-keys" data-view="api-keys">API Keys</a>
            </li>
            <li>
              <a href="#webhooks" data-view="webhooks">Webhooks</a>
            </li>
          </ul>
        </li>
        <li>
          <a href="#security-log" data-view="security-log">Security log</a>
        </li>
      </ul>
    </nav>
  );
}

function KeysView() {
  return (
    <section id="api-keys-view" class="view" aria-labelledby="keys-heading" hidden>
      <Breadcrumb trail={["Settings", "Developer", "API Keys"]} />
      <div class="view-header">
        <div>
          <div class="title-row">
            <h1 id="keys-heading">API Keys</h1>
            <span class="pill" id="keys-count" data-max={String(MAX_ACTIVE_KEYS)} hidden></span>
          </div>
          <p class="muted">
            Keys let your programs call the API with the scopes you choose. Send one in the
            <code>X-API-Key</code>{" "}
            header. A key's value is shown once, when it is created or regenerated. You can have up
            to {MAX_ACTIVE_KEYS} active keys.
          </p>
        </div>
        <div class="view-actions">
          <button type="button" class="button" id="refresh-keys">Refresh</button>
          <button type="button" class="button primary" id="new-key">Create key</button>
        </div>
      </div>
      <p id="keys-status" class="status" role="status" aria-live="polite"></p>
      <div id="keys-error" class="form-error" role="alert"></div>
      <div id="expiring" class="warning expiring" hidden>
        <p class="expiring-title" id="expiring-title"></p>
        <ul id="expiring-list"></ul>
      </div>
      <div class="table-wrap">
        <table class="keys" id="keys-table" aria-labelledby="keys-heading" aria-busy="true">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Last Used</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody id="keys-body"></tbody>
        </table>
        <div id="keys-empty" class="empty" hidden>
          <p class="empty-title">No API keys yet</p>
          <p class="muted">Create a key to call the API from your scripts and services.</p>
        </div>
      </div>
    </section>
  );
}

function ProfileView() {
  return (
    <section id="profile-view" class="view" aria-labelledby="profile-heading" hidden>
      <Breadcrumb trail={["Settings", "Profile"]} />
      <div class="view-header">
        <div>
          <h1 id="profile-heading">Profile</h1>
          <p class="muted">Your account as the API sees it (GET /v1/users/me).</p>
        </div>
      </div>
      <dl class="card profile" id="profile-details">
        <div>
          <dt>Name</dt>
          <dd data-profile="name"></dd>
        </div>
        <div>
          <dt>Email</dt>
          <dd data-profile="email"></dd>
        </div>
        <div>
          <dt>User id</dt>
          <dd>
            <code data-profile="id"></code>
          </dd>
        </div>
        <div>
          <dt>Member since</dt>
          <dd data-profile="createdAt"></dd>
        </div>
      </dl>
    </section>
  );
}

function WhitelistField(props: { id: string }) {
  return (
    <div class="field">
      <label for={props.id}>
        IP whitelist <span class="optional">optional</span>
      </label>
      <p class="hint" id={`${props.id}-hint`}>
        One IPv4 or IPv6 address or CIDR range a line, e.g.{" "}
        <code>203.0.113.0/24</code>. Leave empty to allow every address.
      </p>
      <textarea
        id={props.id}
        name="ipWhitelist"
        rows={3}
        spellcheck={false}
        autocapitalize="off"
        aria-describedby={`${props.id}-hint ${props.id}-error`}
      >
      </textarea>
      <p class="field-error" id={`${props.id}-error`} data-error-for="ipWhitelist"></p>
    </div>
  );
}

function CreateKeyDialog() {
  return (
    <Dialog id="create-dialog" title="Create an API key">
      <form id="create-form" method="post" novalidate>
        <Field
          id="create-name"
          label="Name"
          error="name"
          hint="What uses this key, e.g. CI deploy."
        />
        <fieldset class="field" aria-describedby="create-scopes-error">
          <legend>Scopes</legend>
          <div class="choices">
            {SCOPES.map((scope) => (
              <label class="choice">
                <input type="checkbox" name="scopes" value={scope} />
                <span>
                  <code>{scope}</code>
                  <span class="hint">{SCOPE_HINTS[scope]}</span>
                </span>
              </label>
            ))}
          </div>
          <p class="field-error" id="create-scopes-error" data-error-for="scopes"></p>
        </fieldset>
        <fieldset class="field" aria-describedby="create-expiry-error">
          <legend>Expiration</legend>
          <div class="choices inline">
            {EXPIRY_DAYS.map((days) => (
              <label class="choice">
                <input
                  type="radio"
                  name="expiry"
                  value={String(days)}
                  checked={days === DEFAULT_EXPIRY_DAYS}
                />
                <span>{days} days</span>
              </label>
            ))}
            <label class="choice">
              <input type="radio" name="expiry" value="date" />
              <span>Custom date</span>
            </label>
          </div>
          <div class="expiry-date" id="create-expiry-date-field" hidden>
            <label for="create-expiry-date">Expires on</label>
            <input
              type="date"
              id="create-expiry-date"
              name="expiryDate"
              aria-describedby="create-expiry-error"
            />
          </div>
          <p class="field-error" id="create-expiry-error" data-error-for="expiresInDays expiresAt">
          </p>
        </fieldset>
        <WhitelistField id="create-whitelist" />
        <FormError id="create-error" />
        <div class="dialog-actions">
          <button type="button" class="button" data-close>Cancel</button>
          <button type="submit" class="button primary">Create key</button>
        </div>
      </form>
    </Dialog>
  );
}

function SecretDialog() {
  return (
    <Dialog
      id="secret-dialog"
      title="Your new API key"
      role="alertdialog"
      describedBy="secret-warning"
    >
      <p class="warning" id="secret-warning">
        Copy it now and keep it somewhere safe: <strong>it will not be shown again.</strong>{" "}
        If you lose it, regenerate the key or create a new one.
      </p>
      <label for="secret-value" class="visually-hidden">API key value</label>
      <div class="secret">
        <input id="secret-value" readonly spellcheck={false} autocomplete="off" />
        <button type="button" class="button primary" id="copy-secret">Copy</button>
      </div>
      <p class="notice" id="secret-grace" hidden></p>
      <p id="copy-status" class="status" role="status" aria-live="polite"></p>
      <div class="dialog-actions">
        <button type="button" class="button" data-close>Done</button>
      </div>
    </Dialog>
  );
}

function EditKeyDialog() {
  return (
    <Dialog id="edit-dialog" title="Edit API key">
      <form id="edit-form" method="post" novalidate>
        <Field id="edit-name" label="Name" error="name" />
        <WhitelistField id="edit-whitelist" />
        <FormError id="edit-error" />
        <div class="dialog-actions">
          <button type="button" class="button" data-close>Cancel</button>
          <button type="submit" class="button primary">Save changes</button>
        </div>
      </form>
    </Dialog>
  );
}

function ConfirmDialog() {
  return (
    <Dialog
      id="confirm-dialog"
      title="Are you sure?"
      role="alertdialog"
      describedBy="confirm-message"
    >
      <p id="confirm-message"></p>
      <div class="dialog-actions">
        <button type="button" class="button" id="confirm-cancel">Cancel</button>
        <button type="button" class="button danger" id="confirm-ok">Confirm</button>
      </div>
    </Dialog>
  );
}

/** The whole page; `assets` are the versioned URLs of the script and the stylesheet. */
export function DashboardPage(props: { assets: PageAssets }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light" />
        <title>API Keys · Task Marketplace</title>
        <link rel="stylesheet" href={props.assets.style} />
        <script type="module" src={props.assets.script}></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="topbar">
          <a class="brand" href="/dashboard">
            <span class="brand-mark" aria-hidden="true">◆</span> Task Marketplace
          </a>
          <div class="account" id="account" hidden>
            <span class="account-email" id="account-email"></span>
            <button type="button" class="button small" id="sign-out">Sign out</button>
          </div>
        </header>
        <main id="main" tabindex={-1}>
          <noscript>
            <p class="notice">The dashboard needs JavaScript; the API itself does not.</p>
          </noscript>
          <AuthView />
          <div id="app-view" class="layout" hidden>
            <SideNav />
            <div class="content">
              <KeysView />
              <WebhooksView />
              <SecurityLogView />
              <ProfileView />
            </div>
          </div>
        </main>
        <CreateKeyDialog />
        <SecretDialog />
        <EditKeyDialog />
        <RegenerateDialog />
        <UsageDialog />
        <CreateWebhookDialog />
        <DeliveriesDialog />
        <ConfirmDialog />
      </body>
    </html>
  );
}
