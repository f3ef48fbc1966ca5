/**
 * Which of a task's search words explore indexes: not the words no one searches by (function
 * words of the languages tasks are written in, words under three letters, numbers). A query word
 * drives a word scan only when the index is complete for it: it could start no unindexed word.
 */
/** Shortest indexed word: a shorter query word starts too many words to drive a scan anyway. */
export const MIN_INDEXED_LENGTH = 3;

// Normalized (lower case, no accents) as `words` leaves them; three letters or more, since
// shorter words are never indexed. English, French, German, Spanish and Italian.
const STOP_WORDS: ReadonlySet<string> = new Set(
  `
  about after again all also and any are because been before being both but can could did does
  doing down during each few for from had has have having her here hers herself him himself his
  how into its itself just more most myself nor not now off once only other our ours out over own
  same she should some such than that the their theirs them then there these they this those
  through too under until very was were what when where which while who whom why will with would
  you your yours yourself
  aux avec ces cet cette dans des elle elles est ils les leur leurs lui mais mes moi mon meme nos
  notre nous par pas pour qui que quoi sans ses son sont sur tes toi ton tous tout toute toutes
  une vos votre vous etait etre ete
  aber als auch auf aus bei bin bis das dass dem den der des die doch ein eine einem einen einer
  eines auf fur hat ich ihr ihre ist mit nach nicht noch oder sein sich sie sind uber und uns
  von vor war wie wir zum zur
  con como del desde el las los mas nos para pero por que sin sobre son sus una uno unos unas
  alla alle anche che come con dei della delle dello gli nel nella nelle per piu sono sul sulla
  tra una uno
`.trim().split(/\s+/),
);

const DIGIT = /^\p{N}/u;

/** True when explore indexes this (normalized) word. */
export function isIndexedWord(word: string): boolean {
  return word.length >= MIN_INDEXED_LENGTH && !DIGIT.test(word) && !STOP_WORDS.has(word);
}

/** The words of a task that explore indexes, in the order given. */
export function indexedWords(terms: readonly string[]): string[] {
  return terms.filter(isIndexedWord);
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
