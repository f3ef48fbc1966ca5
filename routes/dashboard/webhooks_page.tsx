/**
 * The dashboard's Settings → Developer → Webhooks view (endpoints, their deliveries, the dialog
 * that adds one) and Settings → Security log.
 */
import { EVENT_TYPES } from "../../domain/webhooks/event.ts";
import { MAX_WEBHOOKS } from "../../domain/webhooks/webhook.ts";
import {
  Breadcrumb,
  CodeChoice,
  Dialog,
  Field,
  FormActions,
  FormError,
  StatusLines,
  TableHead,
} from "./parts.tsx";

export function WebhooksView() {
  return (
    <section id="webhooks-view" class="view" aria-labelledby="webhooks-heading" hidden>
      <Breadcrumb trail={["Settings", "Developer", "Webhooks"]} />
      <div class="view-header">
        <div>
          <h1 id="webhooks-heading">Webhooks</h1>
          <p class="muted">
            Endpoints receive the events of your tasks, applications and keys as signed HTTPS
            requests (Standard Webhooks). Verify each with the endpoint's signing secret, shown once
            when it is added or rotated. Up to {MAX_WEBHOOKS} endpoints.
          </p>
        </div>
        <div class="view-actions">
          <button type="button" class="button" id="refresh-webhooks">Refresh</button>
          <button type="button" class="button primary" id="new-webhook">Add endpoint</button>
        </div>
      </div>
      <StatusLines id="webhooks" />
      <div class="table-wrap">
        <table class="keys" id="webhooks-table" aria-labelledby="webhooks-heading">
          <TableHead columns={["Endpoint", "Events", "Status", "Created"]} actions />
          <tbody id="webhooks-body"></tbody>
        </table>
        <div id="webhooks-empty" class="empty" hidden>
          <p class="empty-title">No endpoints yet</p>
          <p class="muted">Add one to hear about changes instead of polling.</p>
        </div>
      </div>
    </section>
  );
}

export function SecurityLogView() {
  return (
    <section id="security-log-view" class="view" aria-labelledby="security-log-heading" hidden>
      <Breadcrumb trail={["Settings", "Security log"]} />
      <div class="view-header">
        <div>
          <h1 id="security-log-heading">Security log</h1>
          <p class="muted">
            Sign-ins, and changes to your keys, webhook endpoints and profile, over the last 90
            days, with the address and browser or program they came from.
          </p>
        </div>
        <div class="view-actions">
          <button type="button" class="button" id="refresh-log">Refresh</button>
        </div>
      </div>
      <div id="log-error" class="form-error" role="alert"></div>
      <div class="table-wrap">
        <table class="keys" id="log-table" aria-labelledby="security-log-heading">
          <TableHead columns={["When", "Event", "Address", "Client", "Concerns"]} />
          <tbody id="log-body"></tbody>
        </table>
      </div>
      <button type="button" class="button" id="log-more" hidden>Show older entries</button>
    </section>
  );
}

export function CreateWebhookDialog() {
  return (
    <Dialog id="webhook-dialog" title="Add a webhook endpoint">
      <form id="webhook-form" method="post" novalidate>
        <Field
          id="webhook-url"
          label="Endpoint URL"
          error="url"
          type="url"
          hint="An https URL on the public internet, e.g. https://example.com/webhooks."
        />
        <Field id="webhook-description" label="Description" error="description" optional />
        <fieldset class="field" aria-describedby="webhook-events-error">
          <legend>Events</legend>
          <div class="choices">
            <CodeChoice
              name="events"
              value="*"
              hint="Every event, including types added later"
              checked
            />
            {EVENT_TYPES.map((type) => <CodeChoice key={type} name="events" value={type} />)}
          </div>
          <p class="field-error" id="webhook-events-error" data-error-for="events"></p>
        </fieldset>
        <FormError id="webhook-form-error" />
        <FormActions submit="Add endpoint" />
      </form>
    </Dialog>
  );
}

export function DeliveriesDialog() {
  return (
    <Dialog id="deliveries-dialog" title="Recent deliveries">
      <p class="muted" id="deliveries-endpoint"></p>
      <p id="deliveries-status" class="status" role="status" aria-live="polite"></p>
      <div class="table-wrap">
        <table class="keys" id="deliveries-table" aria-labelledby="deliveries-dialog-title">
          <TableHead
            columns={["Event", "Status", "Code", "Duration", "Attempts", "Next retry"]}
            actions
          />
          <tbody id="deliveries-body"></tbody>
        </table>
      </div>
      <div class="dialog-actions">
        <button type="button" class="button" id="refresh-deliveries">Refresh</button>
        <button type="button" class="button" data-close>Close</button>
      </div>
    </Dialog>
  );
}
