/** Small building blocks the dashboard's views and dialogs share: fields, dialogs, the breadcrumb. */
import type { Child } from "hono/jsx";

export function Field(
  props: {
    id: string;
    label: string;
    error: string;
    type?: string;
    autocomplete?: string;
    hint?: string;
    optional?: boolean;
  },
) {
  const describedBy = [props.hint ? `${props.id}-hint` : "", `${props.id}-error`].join(" ").trim();
  return (
    <div class="field">
      <label for={props.id}>
        {props.label}
        {props.optional && <span class="optional">optional</span>}
      </label>
      {props.hint && <p class="hint" id={`${props.id}-hint`}>{props.hint}</p>}
      <input
        id={props.id}
        name={props.error}
        type={props.type ?? "text"}
        autocomplete={props.autocomplete}
        aria-describedby={describedBy}
      />
      <p class="field-error" id={`${props.id}-error`} data-error-for={props.error}></p>
    </div>
  );
}

export function FormError(props: { id: string }) {
  return <div class="form-error" id={props.id} role="alert" data-form-error></div>;
}

export function Breadcrumb(props: { trail: string[] }) {
  return (
    <nav class="breadcrumb" aria-label="Breadcrumb">
      <ol>
        {props.trail.map((step, i) => (
          <li aria-current={i === props.trail.length - 1 ? "page" : undefined}>{step}</li>
        ))}
      </ol>
    </nav>
  );
}

export function Dialog(
  props: { id: string; title: string; children: Child; role?: string; describedBy?: string },
) {
  return (
    <dialog
      id={props.id}
      role={props.role}
      aria-labelledby={`${props.id}-title`}
      aria-describedby={props.describedBy}
    >
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/** A table's column headers; `actions` adds the row buttons' column, named for screen readers only. */
export function TableHead(props: { columns: string[]; actions?: boolean }) {
  // Rendered once on the server, so no key: Hono would print it as an attribute.
  // deno-lint-ignore jsx-key
  const heads = props.columns.map((column) => <th scope="col">{column}</th>);
  return (
    <thead>
      <tr>
        {heads}
        {props.actions && (
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/** A form dialog's buttons: Cancel, which closes it, and the submit button. */
export function FormActions(props: { submit: string }) {
  return (
    <div class="dialog-actions">
      <button type="button" class="button" data-close>Cancel</button>
      <button type="submit" class="button primary">{props.submit}</button>
    </div>
  );
}

/** A view's status line and error line, which the script's `statusLines` writes to. */
export function StatusLines(props: { id: string }) {
  return (
    <>
      <p id={`${props.id}-status`} class="status" role="status" aria-live="polite"></p>
      <div id={`${props.id}-error`} class="form-error" role="alert"></div>
    </>
  );
}

/** A checkbox named by a code value (a scope, an event type), with what it means when told. */
export function CodeChoice(
  props: { name: string; value: string; hint?: string; checked?: boolean },
) {
  return (
    <label class="choice">
      <input type="checkbox" name={props.name} value={props.value} checked={props.checked} />
      <span>
        <code>{props.value}</code>
        {props.hint && <span class="hint">{props.hint}</span>}
      </span>
    </label>
  );
}
