/** The dialogs that create an API key and edit its name and IP whitelist. */
import { type Scope, SCOPES } from "../../domain/auth.ts";
import { CodeChoice, Dialog, Field, FormActions, FormError } from "./parts.tsx";

/** What each scope lets a key do, as docs/contract.md section 3 puts it. */
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
  "reviews:read": "List your own reviews, hidden ones included",
  "reviews:write": "Review the other side of a completed task",
  "alerts:read": "List your task alerts and the tasks they matched",
  "alerts:write": "Create, change and delete your task alerts",
  "messages:read": "Read your conversations and mark them read",
  "messages:write": "Send messages to the other side of your applications",
};

const EXPIRY_DAYS = [7, 30, 90, 365] as const;
const DEFAULT_EXPIRY_DAYS = 30;

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

export function CreateKeyDialog() {
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
              <CodeChoice name="scopes" value={scope} hint={SCOPE_HINTS[scope]} />
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
        <FormActions submit="Create key" />
      </form>
    </Dialog>
  );
}

export function EditKeyDialog() {
  return (
    <Dialog id="edit-dialog" title="Edit API key">
      <form id="edit-form" method="post" novalidate>
        <Field id="edit-name" label="Name" error="name" />
        <WhitelistField id="edit-whitelist" />
        <FormError id="edit-error" />
        <FormActions submit="Save changes" />
      </form>
    </Dialog>
  );
}
