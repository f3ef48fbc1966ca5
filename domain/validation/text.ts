/**
 * User text: the one rule of what a stored text may hold (`userText`), and the accent- and
 * case-insensitive word matching of task search, where the same normalization runs on stored
 * texts and on queries, so a query word matches when it is a prefix of a stored word.
 */
import type { z } from "zod";

/** Longest word kept; longer words are cut, in texts and queries alike, so prefixes still match. */
export const MAX_WORD_LENGTH = 32;

// Letters NFD leaves whole but readers treat as plain Latin; ς folds so "οδος" finds "ΟΔΟΣ"'s
// lower-cased final form. Keys are lower case: folding runs after toLowerCase.
const FOLDS: Readonly<Record<string, string>> = {
  "ß": "ss",
  "æ": "ae",
  "œ": "oe",
  "ø": "o",
  "ł": "l",
  "đ": "d",
  "ð": "d",
  "þ": "th",
  "ı": "i",
  "ς": "σ",
};
const FOLD_PATTERN = /[ßæœøłđðþıς]/g;

// Only the combining-diacritic blocks (accents on Latin, Greek, Cyrillic letters after NFD).
// Stripping every \p{M} would also delete vowel signs of Indic and other scripts, which are
// letters in their own right there.
const DIACRITICS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;

// Marks count as word characters so that scripts written with them are not split mid-word.
const SEPARATORS = /[^\p{L}\p{N}\p{M}]+/u;
const NON_ASCII = /[\u0080-\uffff]/;

function foldChar(c: string): string {
  return FOLDS[c] ?? c;
}

/** Lower-cases, strips accents and folds a few special letters: "Café" → "cafe", "Straße" → "strasse". */
export function normalizeText(s: string): string {
  const lower = s.toLowerCase();
  // Most task texts are plain ASCII; skip the Unicode passes for them.
  if (!NON_ASCII.test(lower)) return lower;
  return lower.normalize("NFD").replace(DIACRITICS, "").replace(FOLD_PATTERN, foldChar);
}

function truncate(word: string): string {
  if (word.length <= MAX_WORD_LENGTH) return word;
  const cut = word.slice(0, MAX_WORD_LENGTH);
  // Never keep half of a surrogate pair.
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** Normalized distinct words of a text, in order of first appearance, each at most 32 long. */
export function words(s: string): string[] {
  const seen = new Set<string>();
  for (const part of normalizeText(s).split(SEPARATORS)) {
    if (part.length > 0) seen.add(truncate(part));
  }
  return [...seen];
}

/** Normalized distinct words of a search query. */
export function queryWords(query: string): string[] {
  return words(query);
}

// ---------------------------------------------------------------------------------------------
// What a user's text may hold: the one rule every stored text field (titles, names, descriptions,
// messages) runs through its zod schema.

// Refused everywhere: C1 controls, U+2028/2029 (line breaks are \n), the bidi embeddings,
// overrides and isolates, and surrogates, which the patterns below accept only as pairs. C0
// controls are refused too: all of them in one-line texts; tab, line feed and a CR before a line
// feed apart in multi-line ones. Written as text so the check and the OpenAPI pattern are one.
const ANYWHERE = String.raw`\u007f-\u009f\u2028-\u202e\u2066-\u2069\ud800-\udfff`;
const SINGLE_LINE_CLASS = String.raw`\u0000-\u001f${ANYWHERE}`;
const MULTI_LINE_CLASS = String.raw`\u0000-\u0008\u000b-\u001f${ANYWHERE}`;
const PAIR = String.raw`[\ud800-\udbff][\udc00-\udfff]`;

/**
 * The rules as ECMA-262 patterns for the OpenAPI document, valid with and without the u flag (a
 * surrogate passes only as half of a pair), so any JSON Schema validator agrees with the check.
 */
export const SINGLE_LINE_PATTERN = `^(?:[^${SINGLE_LINE_CLASS}]|${PAIR})*$`;
export const MULTI_LINE_PATTERN = String.raw`^(?:[^${MULTI_LINE_CLASS}]|\r\n|${PAIR})*$`;

// The first refused character, for the message (a CR is one unless a line feed follows); with
// the u flag a class of surrogates matches unpaired ones only.
const SINGLE_LINE_FORBIDDEN = new RegExp(`[${SINGLE_LINE_CLASS}]`, "u");
const MULTI_LINE_FORBIDDEN = new RegExp(String.raw`(?!\r\n)[${MULTI_LINE_CLASS}]`, "u");

// Letters, digits, punctuation and symbols (emoji are symbols) are what a reader sees; these few
// are letters or symbols that render as nothing (the Hangul fillers, the blank Braille pattern).
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;
const BLANK_GLYPHS = /[\u115f\u1160\u3164\uffa0\u2800]/gu;

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** What a forbidden character is, in words a client can act on. */
function nameOf(char: string): string {
  const code = char.codePointAt(0)!;
  if (code >= 0xd800 && code <= 0xdfff) return "an unpaired surrogate";
  if (char === "\r") return "a carriage return that is not part of a \\r\\n line break";
  if (char === "\n" || char === "\t") return `a line break or tab (${codePoint(char)})`;
  if (code === 0x2028 || code === 0x2029) return `${codePoint(char)} (line breaks are \\n)`;
  if (code > 0x9f) return `${codePoint(char)} (a bidirectional control)`;
  return `${codePoint(char)} (a control character)`;
}

/** Why `text` is not acceptable user text, or null when it is. */
export function textProblem(text: string, multiline: boolean): string | null {
  const bad = (multiline ? MULTI_LINE_FORBIDDEN : SINGLE_LINE_FORBIDDEN).exec(text);
  if (bad) return `must not contain ${nameOf(bad[0])}`;
  if (text.length > 0 && !VISIBLE.test(text.replace(BLANK_GLYPHS, ""))) {
    return "must contain a visible character";
  }
  return null;
}

/**
 * Holds a string schema (already trimmed and bounded) to the text rule: printable characters of
 * any script, emoji included; `multiline` texts also keep tabs and line breaks.
 */
export function userText<T extends z.ZodString>(schema: T, multiline = false): T {
  const pattern = multiline ? MULTI_LINE_PATTERN : SINGLE_LINE_PATTERN;
  // A trimmed text with a minimum length refuses a blank one: the document says so with a
  // lookahead, since its minLength counts the characters before the trim.
  const blankRefused = (schema.minLength ?? 0) > 0;
  return schema.superRefine((text, ctx) => {
    const problem = textProblem(text, multiline);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }).meta({ pattern: blankRefused ? String.raw`^(?=[\s\S]*\S)` + pattern.slice(1) : pattern });
}
