/**
 * Explore's page assembly: matches collected in scan order until one more than the page is found,
 * and the cursor each way a page can end (full, cut short by the budget, or the last).
 */
import type { ExploreItem } from "../../../domain/explore.ts";
import type { Work } from "./work.ts";

/** A page of results and the order key to resume after, or null on the last page. */
export interface ExplorePage {
  items: ExploreItem[];
  next: string | null;
  /** Which index drove the scan, and the storage work done: for benchmarks and logs. */
  plan: string;
  work: Work;
}

/** A page's items and its cursor, before the plan and the work are added. */
export type PageItems = Pick<ExplorePage, "items" | "next">;

/** The matches of one page, in scan order, and how far the scan has looked. */
export class PageAssembly {
  readonly #found: { key: string; item: ExploreItem }[] = [];
  #frontier: string | null;

  constructor(private readonly limit: number, after: string | null) {
    this.#frontier = after;
  }

  /** Matches still wanted: one more than the page, since finding it proves another page follows. */
  get wanted(): number {
    return this.limit + 1 - this.#found.length;
  }

  /** True once the page and the match beyond it are found. */
  get full(): boolean {
    return this.#found.length > this.limit;
  }

  /** A candidate looked at in scan order, with its item when it matched. */
  offer(key: string, item: ExploreItem | null): void {
    // Only a candidate the page could still hold moves the frontier a short page resumes from.
    if (this.#found.length < this.limit) this.#frontier = key;
    if (item) this.#found.push({ key, item });
  }

  /**
   * The full page (its matches and one more, or its matches where the scan knows another
   * follows): its last item is where the next one starts.
   */
  complete(): PageItems {
    const items = this.#found.slice(0, this.limit);
    return { items: items.map((f) => f.item), next: items[this.limit - 1].key };
  }

  /** A page stopped by the budget: the next one resumes below every candidate looked at. */
  cutShort(): PageItems {
    return { items: this.#found.map((f) => f.item), next: this.#frontier };
  }

  /** The last page: every stream is spent. */
  last(): PageItems {
    return { items: this.#found.map((f) => f.item), next: null };
  }
}
