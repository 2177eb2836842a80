/**
 * A small read-through cache for hot metadata reads (credentials, deployment lists). Entries live
 * at most `ttlMs` as a safety net; `clear()` is wired to the invalidation bus, so writes are seen
 * at once. Concurrent misses for one key share a single load.
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<V>>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    /** Values worth keeping; e.g. not "no such key", which a caller spraying keys would fill it with. */
    private readonly keep: (value: V) => boolean = () => true,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    const pending = this.loading.get(key);
    if (pending) return pending;
    const generation = this.generation;
    const promise = load().finally(() => this.loading.delete(key));
    this.loading.set(key, promise);
    const value = await promise;
    // A load that raced with clear() may hold stale rows: hand them to this caller, keep none.
    if (generation === this.generation && this.keep(value)) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
    }
    return value;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.loading.clear();
  }
}
