/**
 * User text: the one rule of what a stored text may hold (`userText`), and the accent- and
 * case-insensitive word matching of task search, where the same normalization runs on stored
 * texts and on queries, so a query word matches when it is a prefix of a stored word.
 */
import { z } from "zod";

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

// What String.prototype.trim (zod's trim) removes: ECMAScript white space and line terminators,
// written out because `\s` means other sets to other validators' regex engines.
export const TRIMMED_CLASS = String
  .raw`\t\n\u000b\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`;

// What renders as nothing: white space, controls, the format characters of the BMP (zero-width
// spaces and joiners, the soft hyphen, invisible operators) and the blank glyphs (Hangul fillers,
// the blank Braille pattern). Every character outside it is visible, those beyond the BMP too: a
// class of astral characters cannot be written so that validators reading patterns by code point
// and those reading them by UTF-16 unit agree. tests/validation/text_rules_test.ts holds the list
// to the runtime's Unicode tables.
export const INVISIBLE_CLASS =
  String.raw`\u0000-\u0020\u007f-\u00a0\u00ad\u0600-\u0605\u061c\u06dd` +
  String.raw`\u070f\u0890\u0891\u08e2\u115f\u1160\u1680\u180e\u2000-\u200f\u2028-\u202f` +
  String.raw`\u205f-\u2064\u2066-\u206f\u2800\u3000\u3164\ufeff\uffa0\ufff9-\ufffb`;
/** A string with something left once trimmed, for the fields with a minimum and no text rule. */
export const NOT_BLANK_PATTERN = String.raw`^(?=[\s\S]*[^${TRIMMED_CLASS}])`;

const VISIBLE = new RegExp(`[^${INVISIBLE_CLASS}]`, "u");

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

/**
 * Why `text`, as sent, is not acceptable user text, or null when it is: the characters are judged
 * as sent (a line break the trim would drop is still refused in a one-line text), and a text that
 * is not empty once trimmed needs a visible character.
 */
export function textProblem(text: string, multiline: boolean): string | null {
  const bad = (multiline ? MULTI_LINE_FORBIDDEN : SINGLE_LINE_FORBIDDEN).exec(text);
  if (bad) return `must not contain ${nameOf(bad[0])}`;
  if (text.trim().length > 0 && !VISIBLE.test(text)) {
    return "must contain a visible character";
  }
  return null;
}

/** The bounds of a user text and its wording. */
export interface TextBounds {
  /** Characters the text needs once trimmed; 0 (the default) lets it be empty. */
  min?: number;
  /** UTF-16 code units the text may have as sent, spaces around it included. */
  max: number;
  /** Keeps tabs and line breaks. */
  multiline?: boolean;
  /** Messages in place of the plain ones. */
  tooShort?: string;
  tooLong?: string;
}

/**
 * The document's pattern for a user text: the characters allowed, and a visible one unless the
 * text is nothing but what the trim removes (then `min` judges it: a text with a minimum needs a
 * visible character outright).
 */
export function textPattern(options: { multiline?: boolean; required: boolean }): string {
  const body = (options.multiline ? MULTI_LINE_PATTERN : SINGLE_LINE_PATTERN).slice(1);
  const visible = String.raw`(?=[\s\S]*[^${INVISIBLE_CLASS}])`;
  return options.required
    ? `^${visible}${body}`
    : `^(?:(?=[${TRIMMED_CLASS}]*$)|${visible})${body}`;
}

/**
 * A user text: printable characters of any script, emoji included (`multiline` texts also keep
 * tabs and line breaks), judged and counted as sent, then trimmed. Every rule is one the
 * document states as JSON Schema, so a validator before the service agrees with it; only the
 * length is counted in UTF-16 units, where JSON Schema counts code points (an emoji counts two).
 */
export function userText(bounds: TextBounds): z.ZodString {
  const { min = 0, max, multiline = false } = bounds;
  const checked = z.string().max(max, bounds.tooLong).superRefine((text, ctx) => {
    const problem = textProblem(text, multiline);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }).trim();
  return (min > 0 ? checked.min(min, bounds.tooShort) : checked)
    .meta({ pattern: textPattern({ multiline, required: min > 0 }) });
}
