/**
 * The dashboard's Settings → Task alerts view: the account's alerts (saved explore filters that
 * send `task.matched`), the dialog that adds one, and the dialog listing an alert's matches.
 */
import { MAX_ALERTS } from "../../domain/alerts/alert.ts";
import {
  Breadcrumb,
  Dialog,
  Field,
  FormActions,
  FormError,
  StatusLines,
  TableHead,
} from "./parts.tsx";

export function AlertsView() {
  return (
    <section id="alerts-view" class="view" aria-labelledby="alerts-heading" hidden>
      <Breadcrumb trail={["Settings", "Task alerts"]} />
      <div class="view-header">
        <div>
          <h1 id="alerts-heading">Task alerts</h1>
          <p class="muted">
            An alert saves explore's filters: when someone publishes a task they match, your webhook
            endpoints that select <code>task.matched</code> hear of it. Up to {MAX_ALERTS} alerts.
          </p>
        </div>
        <div class="view-actions">
          <button type="button" class="button" id="refresh-alerts">Refresh</button>
          <button type="button" class="button primary" id="new-alert">Add alert</button>
        </div>
      </div>
      <StatusLines id="alerts" />
      <div class="table-wrap">
        <table class="keys" id="alerts-table" aria-labelledby="alerts-heading">
          <TableHead columns={["Name", "Filters", "Status", "Created"]} actions />
          <tbody id="alerts-body"></tbody>
        </table>
        <div id="alerts-empty" class="empty" hidden>
          <p class="empty-title">No alerts yet</p>
          <p class="muted">Add one to hear about new tasks instead of searching again.</p>
        </div>
      </div>
    </section>
  );
}

export function CreateAlertDialog() {
  return (
    <Dialog id="alert-dialog" title="Add a task alert">
      <form id="alert-form" method="post" novalidate>
        <Field id="alert-name" label="Name" error="name" hint="e.g. Piano moves near me" />
        <fieldset class="field" aria-describedby="alert-filters-error">
          <legend>Filters (at least one)</legend>
          <Field id="alert-search" label="Words" error="search" optional />
          <div class="field">
            <label for="alert-payment">
              Payment <span class="optional">optional</span>
            </label>
            <select id="alert-payment">
              <option value="">Any</option>
              <option value="Paid">Paid</option>
              <option value="Pro-bono">Pro-bono</option>
            </select>
          </div>
          <Field id="alert-city" label="City" error="cityName" optional />
          <Field id="alert-country" label="Country code" error="countryCode" optional />
          <Field id="alert-latitude" label="Latitude" error="latitude" optional />
          <Field id="alert-longitude" label="Longitude" error="longitude" optional />
          <Field id="alert-radius" label="Radius (km)" error="radiusKm" optional />
          <Field id="alert-min-budget" label="Minimum budget" error="minBudget" optional />
          <p class="field-error" id="alert-filters-error" data-error-for="filters"></p>
        </fieldset>
        <FormError id="alert-form-error" />
        <FormActions submit="Add alert" />
      </form>
    </Dialog>
  );
}

export function AlertMatchesDialog() {
  return (
    <Dialog id="alert-matches-dialog" title="Matched tasks">
      <p class="muted" id="alert-matches-name"></p>
      <p id="alert-matches-status" class="status" role="status" aria-live="polite"></p>
      <div class="table-wrap">
        <table class="keys" id="alert-matches-table" aria-labelledby="alert-matches-dialog-title">
          <TableHead columns={["Task", "Budget", "Where", "Published"]} />
          <tbody id="alert-matches-body"></tbody>
        </table>
      </div>
      <div class="dialog-actions">
        <button type="button" class="button" data-close>Close</button>
      </div>
    </Dialog>
  );
}
