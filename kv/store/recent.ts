/** A bounded memory of recently used values, for the caches an instance keeps on its store handle. */

/** A map that forgets its least recently used keys past a size, counted by `weigh`. */
export class Recent<V> {
  readonly #map = new Map<string, V>();
  #weight = 0;

  constructor(
    private readonly maxKeys: number,
    private readonly maxWeight: number,
    private readonly weigh: (value: V) => number,
  ) {}

  get(key: string): V | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    // Map keeps insertion order: moved to the end, the key is the most recently used.
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }

  /** The value, left where it is in the order of use. */
  peek(key: string): V | undefined {
    return this.#map.get(key);
  }

  set(key: string, value: V): void {
    const old = this.#map.get(key);
    if (old !== undefined) {
      this.#weight -= this.weigh(old);
      this.#map.delete(key);
    }
    this.#map.set(key, value);
    this.#weight += this.weigh(value);
    for (const [k, v] of this.#map) {
      if (this.#map.size <= this.maxKeys && this.#weight <= this.maxWeight) break;
      this.#map.delete(k);
      this.#weight -= this.weigh(v);
    }
  }

  get size(): number {
    return this.#map.size;
  }

  get weight(): number {
    return this.#weight;
  }
}
