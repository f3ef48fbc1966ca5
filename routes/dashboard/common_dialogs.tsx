/**
 * Dialogs every view uses: a secret shown once (an API key's or a webhook's signing secret), and
 * the confirmation asked before a destructive action.
 */
import { Dialog } from "./parts.tsx";

export function SecretDialog() {
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

export function ConfirmDialog() {
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
