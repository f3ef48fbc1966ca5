/**
 * Accent- and case-insensitive word matching for task search: the same normalization runs on
 * stored texts and on queries, so a query word matches when it is a prefix of a stored word.
 */

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

/** True when every query word is a prefix of some word of the texts; an empty query matches all. */
export function matchesSearch(query: string, texts: string[]): boolean {
  const wanted = queryWords(query);
  if (wanted.length === 0) return true;
  const have = new Set<string>();
  for (const text of texts) for (const word of words(text)) have.add(word);
  outer: for (const prefix of wanted) {
    for (const word of have) if (word.startsWith(prefix)) continue outer;
    return false;
  }
  return true;
}
