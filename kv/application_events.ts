/**
 * The webhook events of application writes: each goes to both parties' accounts (the task's
 * creator and the applicant), with the application as the API shows it, in the write's atomic.
 */
import { type ApplicationRecord, toApplication } from "../domain/application.ts";
import { applicationEventType } from "../domain/webhooks/event.ts";
import { addEffects } from "./effects.ts";

/**
 * Adds to `op` the event of `app`'s new state, for each of its parties, raised at `now`; none for
 * a cancelled one.
 */
export async function addApplicationEvents(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  raised: { app: ApplicationRecord; now: number },
): Promise<void> {
  const { app, now } = raised;
  // An application cancelled with its task: its helper hears `task.cancelled` instead
  // (kv/cancellation/cancelled_helpers.ts), its task's creator the task's own event.
  if (app.status === "cancelled") return;
  const event = { type: applicationEventType(app.status), data: toApplication(app) };
  for (const userId of new Set([app.taskOwnerId, app.applicantId])) {
    await addEffects(kv, op, { userId, now, event });
  }
}
