/** The queue's handlers, and start-up of the listener that runs them. */
import { dispatcher, type QueueContext, type QueueHandlers, type QueueMessage } from "./queue.ts";
import { commit } from "./commit.ts";
import { purgeUser } from "./user_purge.ts";
import { pendingPurges } from "./users.ts";

export const queueHandlers: QueueHandlers = { purge_user: purgeUser };

/**
 * Listens to the queue until the store closes. Purges left unfinished (a message lost or a
 * crash mid-purge) are queued again first; purging twice is harmless.
 */
export async function runWorkers(ctx: QueueContext): Promise<void> {
  const listening = ctx.kv.listenQueue(dispatcher(ctx, queueHandlers));
  for (const userId of await pendingPurges(ctx.kv)) {
    const message: QueueMessage = { kind: "purge_user", userId };
    await commit(ctx.kv.atomic().enqueue(message));
  }
  await listening;
}
