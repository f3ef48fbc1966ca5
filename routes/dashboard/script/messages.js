// @ts-check
/// <reference lib="dom" />
// The dashboard's Messages view: the conversations with their unread counts, the open thread
// (marked read up to its newest message once shown) and the composer. A part of the page's one
// script module (see dom.js and register.tsx), so it uses the earlier parts' helpers.

import { $ } from "./dom.js";
import { api, session, statusLines } from "./api.js";
import { $form, onSubmit } from "./forms.js";
import { el, fullFormat, relativeTime, timeElement } from "./format.js";
import { LOADERS } from "./views.js";

/** @typedef {import("./api.js").Json} Json */

const PAGE = 20;
const CLOSED = new Set(["declined", "withdrawn", "cancelled"]);

/** The conversations as last loaded, and the cursor of the next page. */
/** @type {Json[]} */
let conversationList = [];
/** @type {string | null} */
let conversationsCursor = null;
/** The open conversation, its messages oldest first, and the cursor of older ones. */
/** @type {Json | null} */
let open = null;
/** @type {Json[]} */
let threadMessages = [];
/** @type {string | null} */
let olderCursor = null;

const list = $("#conversations-list");
const messagesError = $("#messages-error");
const { announce: announceMessages, report: reportMessages } = statusLines(
  $("#messages-status"),
  messagesError,
);
const composer = $form("#composer");

/**
 * A GET of a cursor-paged listing: the items and the next cursor.
 * @param {string} path
 * @returns {Promise<{ items: Json[], next: string | null }>}
 */
async function page(path) {
  const items = await api("GET", path);
  return { items: [...items], next: items.nextCursor ?? null };
}

/** @param {boolean} [more] */
async function loadConversations(more = false) {
  try {
    const cursor = more && conversationsCursor ? `&cursor=${conversationsCursor}` : "";
    const { items, next } = await page(`/api/v1/conversations?limit=${PAGE}${cursor}`);
    conversationList = more ? [...conversationList, ...items] : items;
    conversationsCursor = next;
    renderConversations();
  } catch (error) {
    reportMessages(error);
  }
}

LOADERS.messages = () => loadConversations();

/** @param {Json} conversation */
function counterpartName(conversation) {
  return conversation.counterpart.firstName ?? "Deleted account";
}

/** @param {Json} conversation */
function conversationItem(conversation) {
  const last = conversation.lastMessage;
  const unread = conversation.unread > 0
    ? el("span", { class: "badge unread", text: `${conversation.unread} unread` })
    : null;
  const current = open?.applicationId === conversation.applicationId;
  return el("li", {}, [
    el("button", {
      type: "button",
      class: `conversation${current ? " current" : ""}`,
      "data-application-id": conversation.applicationId,
      ...(current ? { "aria-current": "true" } : {}),
    }, [
      el("span", { class: "conversation-head" }, [
        el("span", { class: "conversation-title", text: conversation.taskTitle }),
        unread,
      ]),
      el("span", {
        class: "conversation-meta",
        text: `${counterpartName(conversation)} · ${conversation.applicationStatus}`,
      }),
      el("span", {
        class: "conversation-last muted",
        text: last ? (last.body ?? "(deleted)") : "No messages yet",
      }),
    ]),
  ]);
}

function renderConversations() {
  list.replaceChildren(...conversationList.map(conversationItem));
  $("#conversations-empty").hidden = conversationList.length > 0;
  $("#conversations-more").hidden = conversationsCursor === null;
}

/** @param {Json} message */
function messageItem(message) {
  const mine = message.senderId !== null && message.senderId === open?.me;
  const who = message.senderId === null ? "Deleted account" : mine ? "You" : counterpartName(open);
  return el("li", { class: `message${mine ? " mine" : ""}` }, [
    el("p", { class: "message-meta" }, [
      el("span", { class: "message-sender", text: who }),
      " · ",
      timeElement(message.createdAt, relativeTime(message.createdAt)),
    ]),
    el("p", { class: "message-body", text: message.body ?? "(deleted with its account)" }),
  ]);
}

function renderThread() {
  if (!open) return;
  $("#thread").hidden = false;
  $("#thread-heading").textContent = `${open.taskTitle} · ${counterpartName(open)}`;
  const closed = CLOSED.has(open.applicationStatus);
  $("#thread-status-line").textContent = closed
    ? `The application was ${open.applicationStatus}: the conversation is closed, and stays readable.`
    : "";
  composer.hidden = closed;
  $("#thread-messages").replaceChildren(...threadMessages.map(messageItem));
  $("#thread-older").hidden = olderCursor === null;
}

/** Marks the open conversation read up to its newest message, and updates its badge. */
async function markNewestRead() {
  const newest = threadMessages.at(-1);
  if (!open || !newest) return;
  const { unread } = await api("PUT", `/api/v1/applications/${open.applicationId}/read`, {
    upTo: newest.id,
  });
  const listed = conversationList.find((c) => c.applicationId === open?.applicationId);
  if (listed) listed.unread = unread;
  renderConversations();
}

/** @param {string} applicationId */
async function openConversation(applicationId) {
  const conversation = conversationList.find((c) => c.applicationId === applicationId);
  if (!conversation) return;
  try {
    const { items, next } = await page(
      `/api/v1/applications/${applicationId}/messages?limit=${PAGE}`,
    );
    open = { ...conversation, me: session.profile?.id ?? null };
    threadMessages = items.reverse();
    olderCursor = next;
    renderThread();
    $("#thread-heading").focus();
    await markNewestRead();
  } catch (error) {
    reportMessages(error);
  }
}

list.addEventListener("click", (event) => {
  const button = /** @type {HTMLElement | null} */ (
    /** @type {Element} */ (event.target).closest("button[data-application-id]")
  );
  if (button?.dataset.applicationId) openConversation(button.dataset.applicationId);
});

$("#conversations-more").addEventListener("click", () => loadConversations(true));

$("#thread-older").addEventListener("click", async () => {
  if (!open || !olderCursor) return;
  try {
    const path = `/api/v1/applications/${open.applicationId}/messages?limit=${PAGE}` +
      `&cursor=${olderCursor}`;
    const { items, next } = await page(path);
    threadMessages = [...items.reverse(), ...threadMessages];
    olderCursor = next;
    renderThread();
  } catch (error) {
    reportMessages(error);
  }
});

/** Reloads the conversations and the open thread (the refresh button, and live updates). */
export async function refreshMessages() {
  await loadConversations();
  if (open) await openConversation(open.applicationId);
}

$("#refresh-messages").addEventListener("click", async () => {
  await refreshMessages();
  if (!messagesError.textContent) announceMessages("Messages refreshed.");
});

const bodyInput = /** @type {HTMLTextAreaElement} */ ($("#composer-body"));
bodyInput.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) composer.requestSubmit();
});

onSubmit(composer, async () => {
  if (!open) return;
  const sent = await api("POST", `/api/v1/applications/${open.applicationId}/messages`, {
    body: bodyInput.value,
  });
  bodyInput.value = "";
  threadMessages = [...threadMessages, sent];
  const listed = conversationList.find((c) => c.applicationId === open?.applicationId);
  if (listed) {
    listed.lastMessage = sent;
    conversationList = [listed, ...conversationList.filter((c) => c !== listed)];
  }
  renderThread();
  renderConversations();
  announceMessages(`Message sent ${fullFormat.format(new Date(sent.createdAt))}.`);
  bodyInput.focus();
});
