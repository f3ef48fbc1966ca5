/**
 * A candidate of explore's merge: one index entry's order key with what its value carries (facet,
 * packed card or document, words), read in place rather than unpacked.
 */
import type { Payment } from "../../../domain/tasks/task.ts";
import { type Facet, type FacetFields, readFacet } from "../index/facet.ts";
import { type PackedCard, type PackedDoc, packedUserId, packedWords } from "../index/card.ts";
import type { PackedWords } from "../../tasks/packed_words.ts";
import { packedFacet } from "../index/packed_facet.ts";
import { PACKED_ITEM_LENGTH } from "../../tasks/packed_item.ts";
import type { WordEntry } from "../index/entries.ts";

/**
 * One candidate: its order key, its payment class (which names its document's key), its facet
 * fields when the entry gives them (all but word entries), its card when the index holds it
 * (geo, country, name, all) and its search words when the index holds the whole document (all).
 * The card stays packed as listed: most candidates are rejected on their facet, and a match
 * unpacks only the item it shows.
 */
export class Candidate {
  facet: FacetFields | undefined;
  /** Its document's search words, packed; an empty string is a document without words. */
  words: PackedWords | undefined;
  /** True once its card is the one of a document read after its entry (see `load`). */
  reloaded = false;
  /** Where a word entry says its task is: lon, lat (to a hundredth of a degree), radius. */
  position: [lon: number, lat: number, radiusKm: number] | undefined;
  #packed: PackedCard | PackedDoc | undefined;

  constructor(
    readonly key: string,
    readonly payment: Payment,
    from?: { facet: FacetFields; packed?: PackedCard | PackedDoc },
  ) {
    this.facet = from?.facet;
    this.#packed = from?.packed;
    if (from?.packed?.length === PACKED_ITEM_LENGTH + 3) {
      this.words = packedWords(from.packed as PackedDoc);
    }
  }

  /** The packed card (or document) it holds, or undefined. */
  get packed(): PackedCard | PackedDoc | undefined {
    return this.#packed;
  }

  /** Its author, read in place; it must hold a card. */
  get userId(): string {
    return packedUserId(this.#packed!);
  }

  /**
   * Takes its document, read after its entry: card, facet and words are the document's from then
   * on; null (gone since the entry was listed: deleted or changed in between) leaves no card.
   */
  load(doc: PackedDoc | null): void {
    this.reloaded = true;
    this.#packed = doc ?? undefined;
    if (doc) {
      this.facet = packedFacet(doc);
      this.words = packedWords(doc);
    }
  }
}

/**
 * Value of an index entry: a word's paid flag (and position), a facet (overflow), a packed card
 * (geo, point, country, name) or a packed document (all).
 */
export type EntryValue = WordEntry | Facet | PackedCard | PackedDoc;

/** A candidate from an index entry's value. */
export function candidateOf(key: string, value: EntryValue): Candidate {
  if (typeof value === "boolean") return new Candidate(key, value ? "Paid" : "Pro-bono");
  if (typeof value[0] === "boolean") {
    const [paid, lon, lat, radiusKm] = value as Exclude<WordEntry, boolean>;
    const candidate = new Candidate(key, paid ? "Paid" : "Pro-bono");
    candidate.position = [lon / 100, lat / 100, radiusKm];
    return candidate;
  }
  // A facet starts with its longitude, a packed card with the task's id.
  if (typeof value[0] === "number") {
    const facet = readFacet(value as Facet);
    return new Candidate(key, facet.payment, { facet });
  }
  const packed = value as PackedCard | PackedDoc;
  const facet = packedFacet(packed);
  return new Candidate(key, facet.payment, { facet, packed });
}
