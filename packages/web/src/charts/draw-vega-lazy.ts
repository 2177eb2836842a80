import type { DrawVegaOptions } from './draw-vega.ts';

/**
 * `drawVega`, with Vega loaded on the first chart rather than with the page (bench/web: Vega is
 * about 300 KB gzipped, more than a whole page may ship before it first paints). A dashboard shows
 * its title, filters, figures and tables while Vega downloads alongside the widgets' rows. Answers
 * `stop` at once, as drawVega does; a chart stopped before Vega arrived is never drawn.
 */
export function drawVegaLazily(
  element: HTMLElement,
  spec: Record<string, unknown>,
  options: DrawVegaOptions,
): () => void {
  let stop: (() => void) | null = null;
  let stopped = false;
  import('./draw-vega.ts').then(
    ({ drawVega }) => {
      if (!stopped) stop = drawVega(element, spec, options);
    },
    (error: unknown) => {
      if (!stopped) options.onError(error);
    },
  );
  return () => {
    stopped = true;
    stop?.();
  };
}
