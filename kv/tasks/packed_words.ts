/**
 * A task's search words as its index entries store them (explore's documents, the owner's
 * listing): one string, since V8's serialization pays per array element and a search reads
 * several entries for each item it shows.
 */

/**
 * Put before every word. Domain's `words` splits a text on every run of characters that are not
 * letters, numbers or marks (\p{L}, \p{N}, \p{M}), after normalizing it, and only cuts a word
 * shorter after that: no stored or query word can hold a space (\p{Zs}). So a space followed by a
 * query word can only occur where a stored word starts with that query word, never inside a
 * word nor across two.
 */
const SEPARATOR = " ";

/** A task's search words, each after a separator; no words is the empty string. */
export type PackedWords = string;

export function packWords(words: readonly string[]): PackedWords {
  let packed = "";
  for (const word of words) packed += SEPARATOR + word;
  return packed;
}

export function unpackWords(packed: PackedWords): string[] {
  return packed === "" ? [] : packed.slice(SEPARATOR.length).split(SEPARATOR);
}

/**
 * True when every wanted (query) word is a prefix of some stored word, as domain's `matchesTerms`
 * says of the unpacked words; no wanted words match all.
 */
export function packedHasWords(packed: PackedWords, wanted: readonly string[]): boolean {
  return wanted.every((prefix) => packed.includes(SEPARATOR + prefix));
}
