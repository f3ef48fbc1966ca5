/** The queue's handlers, and start-up of the listener that runs them. */
import { deliveryPolicy, Settings } from "../domain/settings.ts";
import type { DeliveryPolicy } from "../domain/webhook_schedule.ts";
import { dispatcher, type QueueContext, type QueueHandlers, type QueueMessage } from "./queue.ts";
import { settleImpliedDeclines } from "./application_declines.ts";
import { commit, retryTransient } from "./commit.ts";
import { keyNotice } from "./key_notices.ts";
import { purgeUser } from "./user_purge.ts";
import { pendingPurges } from "./users.ts";
import { deliver, fanOutEvent } from "./webhook_sender.ts";

export const queueHandlers: QueueHandlers = {
  purge_user: purgeUser,
  webhook_event: fanOutEvent,
  webhook_delivery: deliver,
  api_key_notice: keyNotice,
  task_declines: settleImpliedDeclines,
};

/**
 * Listens to the queue until the store closes. Purges left unfinished (a message lost or a
 * crash mid-purge) are queued again first; purging twice is harmless. Without a delivery policy
 * the settings' defaults apply (the real retry schedule, public https targets only).
 */
export async function runWorkers(
  options: Omit<QueueContext, "webhooks"> & { webhooks?: DeliveryPolicy },
): Promise<void> {
  const ctx: QueueContext = {
    ...options,
    webhooks: options.webhooks ?? deliveryPolicy(Settings.parse({})),
  };
  const listening = ctx.kv.listenQueue(dispatcher(ctx, queueHandlers));
  for (const userId of await retryTransient(() => pendingPurges(ctx.kv))) {
    const message: QueueMessage = { kind: "purge_user", userId };
    await commit(ctx.kv.atomic().enqueue(message));
  }
  await listening;
}
