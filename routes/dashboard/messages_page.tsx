/**
 * The dashboard's Messages view: the account's conversations (one per application it made or
 * received) with their unread counts, the open conversation's thread, and a composer.
 */
import { MAX_MESSAGE_LENGTH } from "../../domain/conversations/message.ts";
import { Breadcrumb, StatusLines } from "./parts.tsx";

export function MessagesView() {
  return (
    <section id="messages-view" class="view" aria-labelledby="messages-heading" hidden>
      <Breadcrumb trail={["Messages"]} />
      <div class="view-header">
        <div>
          <h1 id="messages-heading">Messages</h1>
          <p class="muted">
            A conversation per application, between the task's creator and the applicant.
          </p>
        </div>
        <div class="view-actions">
          <button type="button" class="button" id="refresh-messages">Refresh</button>
        </div>
      </div>
      <StatusLines id="messages" />
      <div class="messages-layout">
        <nav class="conversations" aria-labelledby="conversations-heading">
          <h2 id="conversations-heading" class="visually-hidden">Conversations</h2>
          <ul id="conversations-list"></ul>
          <div id="conversations-empty" class="empty" hidden>
            <p class="empty-title">No conversations yet</p>
            <p class="muted">Apply to a task, or wait for applications to yours.</p>
          </div>
          <button type="button" class="button small" id="conversations-more" hidden>
            More conversations
          </button>
        </nav>
        <section id="thread" class="thread" aria-labelledby="thread-heading" hidden>
          <h2 id="thread-heading" tabindex={-1}></h2>
          <p class="muted" id="thread-status-line"></p>
          <button type="button" class="button small" id="thread-older" hidden>
            Older messages
          </button>
          <ol id="thread-messages" class="thread-messages" aria-label="Messages, oldest first">
          </ol>
          <form id="composer" class="composer" method="post" novalidate>
            <label for="composer-body">Message</label>
            <p class="hint" id="composer-hint">
              Up to {MAX_MESSAGE_LENGTH.toLocaleString("en")} characters; Ctrl+Enter sends.
            </p>
            <textarea
              id="composer-body"
              name="body"
              rows={3}
              maxlength={MAX_MESSAGE_LENGTH}
              aria-describedby="composer-hint composer-body-error"
            >
            </textarea>
            <p class="field-error" id="composer-body-error" data-error-for="body"></p>
            <div class="form-error" id="composer-error" role="alert" data-form-error></div>
            <div class="composer-actions">
              <button type="submit" class="button primary">Send</button>
            </div>
          </form>
        </section>
      </div>
    </section>
  );
}
