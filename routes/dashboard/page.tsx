/**
 * The dashboard's HTML shell, rendered on the server with Hono's JSX: the top bar, the sign-in
 * view, Settings' navigation and views, and the dialogs, each from its own module. The data
 * arrives later from the JSON API.
 */
import { AlertMatchesDialog, AlertsView, CreateAlertDialog } from "./alerts_page.tsx";
import { AuthView } from "./auth_view.tsx";
import { MessagesView } from "./messages_page.tsx";
import { ConfirmDialog, SecretDialog } from "./common_dialogs.tsx";
import { CreateKeyDialog, EditKeyDialog } from "./key_forms.tsx";
import { RegenerateDialog, UsageDialog } from "./key_dialogs.tsx";
import { KeysView } from "./keys_view.tsx";
import { ProfileView } from "./profile_view.tsx";
import {
  CreateWebhookDialog,
  DeliveriesDialog,
  SecurityLogView,
  WebhooksView,
} from "./webhooks_page.tsx";

export interface PageAssets {
  script: string;
  style: string;
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
          <a href="#messages" data-view="messages">Messages</a>
        </li>
        <li>
          <a href="#alerts" data-view="alerts">Task alerts</a>
        </li>
        <li>
          <a href="#security-log" data-view="security-log">Security log</a>
        </li>
      </ul>
    </nav>
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
        <link rel="icon" href="/favicon.ico" />
        <link rel="stylesheet" href={props.assets.style} />
        <script type="module" src={props.assets.script}></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="topbar">
          <a class="brand" href="/dashboard">
            <span class="brand-mark" aria-hidden="true">◆</span> Task Marketplace
          </a>
          <div class="topbar-end">
            <a class="toplink" href="/docs">API reference</a>
            <div class="account" id="account" hidden>
              <span class="live-status" id="live-status" role="status"></span>
              <span class="account-email" id="account-email"></span>
              <button type="button" class="button small" id="sign-out">Sign out</button>
            </div>
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
              <AlertsView />
              <MessagesView />
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
        <CreateAlertDialog />
        <AlertMatchesDialog />
        <ConfirmDialog />
      </body>
    </html>
  );
}
