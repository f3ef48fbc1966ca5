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
