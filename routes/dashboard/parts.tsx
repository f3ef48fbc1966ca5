/** Small building blocks the dashboard's page and dialogs share. */
import type { Child } from "hono/jsx";

export function FormError(props: { id: string }) {
  return <div class="form-error" id={props.id} role="alert" data-form-error></div>;
}

/** A modal dialog labelled by its title. */
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
