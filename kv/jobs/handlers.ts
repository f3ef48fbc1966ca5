/** The handler of each kind of job. */
import { matchTask } from "../alerts/matching.ts";
import { forgetMatches } from "../alerts/alerts.ts";
import { settleImpliedDeclines } from "../application_declines.ts";
import { keyNotice } from "../api_keys/key_notices.ts";
import { publishReview } from "../reviews/events.ts";
import { closeReviewWindow } from "../reviews/window.ts";
import { refreshJob, refreshTitles } from "../conversations/refresh.ts";
import { purgeUser } from "../users/user_purge.ts";
import { deliver, fanOutEvent } from "../webhooks/webhook_sender.ts";
import type { JobHandlers } from "./types.ts";

export const jobHandlers: JobHandlers = {
  purge_user: purgeUser,
  webhook_event: fanOutEvent,
  webhook_delivery: deliver,
  api_key_notice: keyNotice,
  task_declines: settleImpliedDeclines,
  review_window: closeReviewWindow,
  review_published: publishReview,
  alert_match: matchTask,
  alert_forget: forgetMatches,
  conversation_refresh: refreshJob,
  conversation_titles: refreshTitles,
};
