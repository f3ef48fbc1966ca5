/**
 * The dialogs of docs/contract.md section 14 on the dashboard: regenerating with a grace period, and a
 * key's usage chart (drawn by key_usage.js as inline SVG).
 */
import { Dialog, FormError, TableHead } from "./parts.tsx";

/** The grace choices of docs/contract.md section 14, as the regenerate dialog offers them. */
const GRACE_CHOICES = [
  ["now", "Immediately"],
  ["1h", "In 1 hour"],
  ["24h", "In 24 hours"],
  ["7d", "In 7 days"],
] as const;

export function RegenerateDialog() {
  return (
    <Dialog
      id="regenerate-dialog"
      title="Regenerate key?"
      role="alertdialog"
      describedBy="regenerate-message"
    >
      <form id="regenerate-form" method="post" novalidate>
        <p id="regenerate-message">
          The key gets a new value, shown once. Choose when its current value stops working: a grace
          period lets your programs switch to the new value without an outage.
        </p>
        <fieldset class="field" aria-describedby="regenerate-grace-error">
          <legend>The current value stops working</legend>
          <div class="choices inline">
            {GRACE_CHOICES.map(([value, label]) => (
              <label class="choice">
                <input type="radio" name="grace" value={value} checked={value === "now"} />
                <span>{label}</span>
              </label>
            ))}
          </div>
          <p class="hint" id="regenerate-deadline"></p>
          <p class="field-error" id="regenerate-grace-error" data-error-for="expireCurrentIn">
          </p>
        </fieldset>
        <FormError id="regenerate-error" />
        <div class="dialog-actions">
          <button type="button" class="button" id="regenerate-cancel" data-close>Cancel</button>
          <button type="submit" class="button danger">Regenerate key</button>
        </div>
      </form>
    </Dialog>
  );
}

export function UsageDialog() {
  return (
    <Dialog id="usage-dialog" title="Usage">
      <fieldset class="field range-choice">
        <legend>Period</legend>
        <div class="choices inline">
          {[["24h", "24 hours"], ["7d", "7 days"], ["90d", "90 days"]].map(([value, label]) => (
            <label class="choice">
              <input type="radio" name="usage-range" value={value} checked={value === "24h"} />
              <span>{label}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <p class="usage-totals" id="usage-totals" aria-live="polite"></p>
      <div class="usage-chart" id="usage-chart"></div>
      <ul class="legend" aria-hidden="true">
        <li>
          <span class="swatch ok"></span>2xx
        </li>
        <li>
          <span class="swatch client-error"></span>4xx
        </li>
        <li>
          <span class="swatch rate-limited"></span>429
        </li>
        <li>
          <span class="swatch server-error"></span>5xx
        </li>
      </ul>
      <details class="usage-figures">
        <summary>Figures as a table</summary>
        <div class="table-wrap">
          <table class="figures" id="usage-table">
            <TableHead columns={["From", "2xx", "4xx", "429", "5xx"]} />
            <tbody></tbody>
          </table>
        </div>
      </details>
      <div id="usage-error" class="form-error" role="alert"></div>
      <div class="dialog-actions">
        <button type="button" class="button" data-close>Close</button>
      </div>
    </Dialog>
  );
}
