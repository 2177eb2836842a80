/**
 * What running a query gives an in-process caller: the result, or "still running" with a handle
 * to await it. The data API's `/v1/load` route turns "running" into Cube's `{"error": "Continue
 * wait"}` (the client repeats and joins the same execution); every other caller (SQL API,
 * dashboard widgets, chat tools, the renderer) simply waits. Nobody compares a wire message.
 */
export type Outcome<R> =
  | { readonly state: 'done'; readonly result: R }
  | {
      readonly state: 'running';
      /** The result once the execution ends (it carries on whether or not anyone waits). */
      wait(): Promise<R>;
    };

export const done = <R>(result: R): Outcome<R> => ({ state: 'done', result });

/** The result, waiting for it if the execution is still running. */
export function settled<R>(outcome: Outcome<R>): Promise<R> {
  return outcome.state === 'done' ? Promise.resolve(outcome.result) : outcome.wait();
}

/** One outcome of several (a blending or compare query runs one execution per part). */
export function combine<P, R>(parts: readonly Outcome<P>[], assemble: (results: P[]) => R): Outcome<R> {
  if (parts.every((p) => p.state === 'done')) return done(assemble(parts.map((p) => p.result)));
  // `wait` starts awaiting only when called, so an outcome nobody waits for leaves no rejection behind.
  return { state: 'running', wait: async () => assemble(await Promise.all(parts.map(settled))) };
}
