/** Settings → Developer → API Keys: the keys table the script fills, with its notices. */
import { MAX_ACTIVE_KEYS } from "../../domain/api_key.ts";
import { Breadcrumb, StatusLines, TableHead } from "./parts.tsx";

export function KeysView() {
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
      <StatusLines id="keys" />
      <div id="expiring" class="warning expiring" hidden>
        <p class="expiring-title" id="expiring-title"></p>
        <ul id="expiring-list"></ul>
      </div>
      <div class="table-wrap">
        <table class="keys" id="keys-table" aria-labelledby="keys-heading" aria-busy="true">
          <TableHead
            columns={["Name", "Key", "Scopes", "Created", "Expires", "Last Used"]}
            actions
          />
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
