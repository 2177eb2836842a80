import type { RedisFanout } from './modules/chat/fanout.ts';
import type { SharedResults } from './modules/data/shared-cache.ts';

/** What REDIS_URL adds to the application: the shared query cache and the chat fan-out. */
export interface RedisParts {
  shared: SharedResults;
  fanout: RedisFanout;
}

/**
 * The Redis parts when REDIS_URL is set, with ioredis loaded only then: a server without Redis
 * (the default) never loads it, which saved a start about 60 files (issue 20, item 6). Both
 * connect lazily, so building them here opens nothing.
 */
export async function redisParts(url: string | null, namespace = 'tessera'): Promise<RedisParts | null> {
  if (!url) return null;
  const [{ SharedResults }, { RedisFanout }] = await Promise.all([
    import('./modules/data/shared-cache.ts'),
    import('./modules/chat/fanout.ts'),
  ]);
  return {
    shared: new SharedResults(url, undefined, namespace),
    fanout: new RedisFanout(url, namespace),
  };
}
