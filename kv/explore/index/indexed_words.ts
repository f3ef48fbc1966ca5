/**
 * Which of a task's search words explore indexes: not the words no one searches by (stop words,
 * words under three letters, numbers), nor a word that starts another indexed word of the task.
 * A query word drives a word scan only when the index is complete for it: it could start no
 * unindexed word.
 */
import { STOP_WORDS } from "./stop_words.ts";

/** Shortest indexed word: a shorter query word starts too many words to drive a scan anyway. */
export const MIN_INDEXED_LENGTH = 3;

const DIGIT = /^\p{N}/u;

/** True when explore indexes this (normalized) word where no longer word of its task starts with it. */
export function isIndexedWord(word: string): boolean {
  return word.length >= MIN_INDEXED_LENGTH && !DIGIT.test(word) && !STOP_WORDS.has(word);
}

/**
 * The words of a task that explore indexes, in the order given. A word that starts another
 * indexed word of the task is left out: every query word that starts it starts the longer word
 * too, whose entry finds the task.
 */
export function indexedWords(terms: readonly string[]): string[] {
  const indexed = terms.filter(isIndexedWord);
  // The words a word starts follow it in sorted order, the nearest first.
  const sorted = [...indexed].sort();
  const prefixes = new Set<string>();
  for (let i = 0; i + 1 < sorted.length; i++) {
    if (sorted[i + 1].startsWith(sorted[i])) prefixes.add(sorted[i]);
  }
  return prefixes.size === 0 ? indexed : indexed.filter((word) => !prefixes.has(word));
}

/**
 * True when every word a query word (a prefix) can match is indexed, so that the word index
 * alone finds every task it matches; otherwise another driver scans and checks the words.
 */
export function indexCovers(prefix: string): boolean {
  if (prefix.length < MIN_INDEXED_LENGTH || DIGIT.test(prefix)) return false;
  for (const stop of STOP_WORDS) if (stop.startsWith(prefix)) return false;
  return true;
}
