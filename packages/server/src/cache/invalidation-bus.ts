import type { Store } from '../db/database.ts';

/** Topics whose cached reads must be dropped when the underlying rows change. */
export const cacheTopics = ['credentials', 'deployments'] as const;
export type CacheTopic = (typeof cacheTopics)[number];

/** Channel the change triggers of migration 0003 notify on. */
export const invalidationChannel = 'tessera_cache_invalidation';

/**
 * Tells the caches of every replica that rows changed. Triggers in the store NOTIFY on commit, so
 * every write, through any code path and on any replica, reaches every cache (DESIGN.md "One
 * process, many replicas"). Services also publish locally right after their own writes, so that
 * the next request on this replica never waits for the notification to arrive.
 */
export class InvalidationBus {
  private readonly subscribers = new Map<CacheTopic, Set<() => void>>();
  private unlisten: (() => Promise<void>) | null = null;

  subscribe(topic: CacheTopic, onChange: () => void): void {
    const set = this.subscribers.get(topic) ?? new Set();
    this.subscribers.set(topic, set);
    set.add(onChange);
  }

  publish(topic: CacheTopic): void {
    for (const onChange of this.subscribers.get(topic) ?? []) onChange();
  }

  async connect(store: Store): Promise<void> {
    this.unlisten = await store.listen(invalidationChannel, (payload) => {
      if ((cacheTopics as readonly string[]).includes(payload)) this.publish(payload as CacheTopic);
    });
  }

  async close(): Promise<void> {
    await this.unlisten?.();
    this.unlisten = null;
  }
}
