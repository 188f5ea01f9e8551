/**
 * A bounded map whose entries expire: the least recently used entry goes first when it is full.
 * A Map keeps insertion order, so re-inserting on a hit moves the entry to the young end. A hit
 * moves it at most once per `touchMs`: on the data path a key is read thousands of times a
 * second, and a delete and set per read made the Map rebuild its table every few reads (work and
 * garbage for the collector); recency to within `touchMs` is enough to pick whom to forget.
 */
export class TtlLru<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number; placedAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly touchMs = 1_000,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    if (now - entry.placedAt >= this.touchMs) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      entry.placedAt = now;
    }
    return entry.value;
  }

  /** The live value, leaving its place as it is. */
  peek(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.expiresAt > now ? entry.value : undefined;
  }

  /** A new entry goes to the young end; an existing one is updated in place, moved as a hit is. */
  set(key: string, value: V, now = Date.now()): void {
    const entry = this.entries.get(key);
    if (entry !== undefined && now - entry.placedAt < this.touchMs) {
      entry.value = value;
      entry.expiresAt = now + this.ttlMs;
      return;
    }
    if (entry !== undefined) this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: now + this.ttlMs, placedAt: now });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  /** Every live entry, for the rare event that touches many (an account's plan changed). */
  *values(): IterableIterator<[string, V]> {
    for (const [key, entry] of this.entries) yield [key, entry.value];
  }

  clear(): void {
    this.entries.clear();
  }
}
