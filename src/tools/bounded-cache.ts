/**
 * A Map that keeps at most `capacity` entries, and at most `maxWeight` of their weights
 * together (each entry's weight given on `set`), dropping the least recently used first.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, { value: V; weight: number }>();
  private weight = 0;

  constructor(
    readonly capacity: number,
    readonly maxWeight = Number.POSITIVE_INFINITY,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      // Map iteration order is insertion order: re-inserting marks the entry as recently used.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry?.value;
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }

  /** Drops every entry whose value matches (a walk over all entries). */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.delete(key);
  }

  set(key: K, value: V, weight = 0): void {
    this.delete(key);
    this.entries.set(key, { value, weight });
    this.weight += weight;
    while (this.entries.size > this.capacity || this.weight > this.maxWeight) {
      const oldest = this.entries.keys().next();
      if (oldest.done || (oldest.value === key && this.entries.size === 1)) break;
      this.delete(oldest.value);
    }
  }
}
