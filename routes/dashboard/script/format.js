// @ts-check
/// <reference lib="dom" />
// Dates and elements as the dashboard shows them. A part of the page's one script module (see
// dom.js).

export const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
export const fullFormat = new Intl.DateTimeFormat(undefined, {
  dateStyle: "medium",
  timeStyle: "short",
});
const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: "always" });
/** @type {[Intl.RelativeTimeFormatUnit, number][]} */
const UNITS = [
  ["year", 31_536_000],
  ["month", 2_592_000],
  ["week", 604_800],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
];

/**
 * "Just now", "2 minutes ago", "3 days ago".
 * @param {string} iso
 */
export function relativeTime(iso) {
  const seconds = (Date.now() - Date.parse(iso)) / 1000;
  if (seconds < 60) return "Just now";
  const [unit, size] = UNITS.find(([, size]) => seconds >= size) ?? UNITS[UNITS.length - 1];
  return relativeFormat.format(-Math.floor(seconds / size), unit);
}

/**
 * @param {string} iso
 * @param {string} text
 */
export function timeElement(iso, text) {
  const time = document.createElement("time");
  time.dateTime = iso;
  time.title = fullFormat.format(new Date(iso));
  time.textContent = text;
  return time;
}

/** @param {Date} date */
export function isoDay(date) {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 10);
}

/**
 * An element with attributes (`class` and `text` set its class and text) and children.
 * @param {string} tag
 * @param {Record<string, string>} [props]
 * @param {(Node | string | null | undefined | false)[] | Node | string} [children]
 */
export function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of [children].flat()) if (child) node.append(child);
  return node;
}
