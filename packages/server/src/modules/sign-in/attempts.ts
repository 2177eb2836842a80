/** What `AttemptLimiter.attempt` answers: the check's outcome, or how long the key must wait. */
export type AttemptOutcome = { ok: boolean } | { retryAfterSeconds: number };

/**
 * Counts failed password checks per key (email and client address) in a fixed window, and
 * refuses further checks once a key reached the limit, until its window ends; a success forgets
 * the key's failures. The checks of one key run one after another, so that a burst of parallel
 * guesses is judged guess by guess (a check counts only once it failed) and parallel correct
 * sign-ins all succeed. Held in memory, per replica, like the request rate limit
 * (http/rate-limit.ts): a refused guess writes nothing to the store.
 */
export class AttemptLimiter {
  private readonly failures = new Map<string, { count: number; resetAt: number }>();
  /** The end of each key's queue of checks. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    /** Keys kept at most; expired ones go first, then the oldest. */
    private readonly maxKeys = 100_000,
  ) {}

  /** Runs `check` (true: the password matched) after the earlier checks of `key`, unless the key must wait. */
  async attempt(key: string, check: () => Promise<boolean>): Promise<AttemptOutcome> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    let release = () => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.queues.set(key, tail);
    await previous;
    try {
      const wait = this.retryAfter(key, Date.now());
      if (wait > 0) return { retryAfterSeconds: wait };
      const ok = await check();
      if (ok) this.failures.delete(key);
      else this.fail(key, Date.now());
      return { ok };
    } finally {
      release();
      if (this.queues.get(key) === tail) this.queues.delete(key);
    }
  }

  private retryAfter(key: string, now: number): number {
    const entry = this.failures.get(key);
    if (!entry || entry.resetAt <= now || entry.count < this.max) return 0;
    return Math.max(1, Math.ceil((entry.resetAt - now) / 1000));
  }

  private fail(key: string, now: number) {
    const entry = this.failures.get(key);
    if (entry && entry.resetAt > now) {
      entry.count++;
      return;
    }
    this.failures.delete(key);
    this.makeRoom(now);
    this.failures.set(key, { count: 1, resetAt: now + this.windowMs });
  }

  private makeRoom(now: number) {
    if (this.failures.size < this.maxKeys) return;
    for (const [key, entry] of this.failures) if (entry.resetAt <= now) this.failures.delete(key);
    // Still full: the oldest windows (Map order is insertion order) give way.
    for (const key of this.failures.keys()) {
      if (this.failures.size < this.maxKeys) break;
      this.failures.delete(key);
    }
  }
}
