import embed, { type EmbedOptions, type Result, type VisualizationSpec } from 'vega-embed';
import { vegaEmbedOptions } from './vega-options.ts';

/** A chart's size in pixels; without a height, the spec's own is kept and never changed. */
export interface ChartSize {
  width: number;
  height?: number;
}

export interface DrawVegaOptions {
  config: EmbedOptions['config'];
  /** Measured when the chart is drawn and each time the element resizes. */
  size: () => ChartSize;
  onDrawn: () => void;
  onError: (error: unknown) => void;
}

/**
 * Draws a Vega-Lite spec into `element` at `size()` (fitted, padding included) and redraws it
 * when the element's size changes. Returns the cleanup for a React effect: after it, a draw still
 * under way is thrown away and neither callback is called.
 */
export function drawVega(
  element: HTMLElement,
  spec: Record<string, unknown>,
  { config, size, onDrawn, onError }: DrawVegaOptions,
): () => void {
  let result: Result | null = null;
  let cancelled = false;
  let last = size();
  embed(
    element,
    { ...spec, ...last, autosize: { type: 'fit', contains: 'padding' } } as VisualizationSpec,
    vegaEmbedOptions(config),
  )
    .then((embedded) => {
      if (cancelled) {
        embedded.finalize();
        return;
      }
      result = embedded;
      onDrawn();
    })
    .catch((error: unknown) => {
      if (!cancelled) onError(error);
    });
  const observer = new ResizeObserver(() => {
    const next = size();
    if (!result || (next.width === last.width && next.height === last.height)) return;
    last = next;
    result.view.width(next.width);
    if (next.height !== undefined) result.view.height(next.height);
    result.view.runAsync();
  });
  observer.observe(element);
  return () => {
    cancelled = true;
    observer.disconnect();
    result?.finalize();
    element.replaceChildren();
  };
}
