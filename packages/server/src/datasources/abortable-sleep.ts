/**
 * Waits `ms`, or less: an abort of `signal` ends the wait at once (resolving, not rejecting), so
 * that a driver's poll or retry loop sees the abort on its next check and cancels its statement.
 */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
