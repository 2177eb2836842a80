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
  /**
   * Called with the scenegraph item a click lands on, or the one a focused mark or legend entry
   * stands for when Enter or Space is pressed on it. With it, the marks and legend entries are
   * made focusable (keyboard users pick them as a mouse would).
   */
  onPick?: (item: unknown) => void;
}

/** The SVG elements a keyboard user can pick: a chart's marks and its legend's entries. */
const pickable = '.role-mark path, .role-legend-symbol path, .role-legend-label text';

/**
 * Draws a Vega-Lite spec into `element` at `size()` (fitted, padding included) and redraws it
 * when the element's size changes. Returns the cleanup for a React effect: after it, a draw still
 * under way is thrown away and neither callback is called.
 */
export function drawVega(
  element: HTMLElement,
  spec: Record<string, unknown>,
  { config, size, onDrawn, onError, onPick }: DrawVegaOptions,
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
      if (onPick) {
        embedded.view.addEventListener('click', (_event, item) => {
          if (item) onPick(item);
        });
        focusable();
      }
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
    result.view.runAsync().then(focusable, () => {});
  });
  // Vega's SVG renderer hangs each element's scenegraph item on it as `__data__`.
  const onKey = (event: KeyboardEvent) => {
    if (!onPick || (event.key !== 'Enter' && event.key !== ' ')) return;
    const target = event.target as (Element & { __data__?: unknown }) | null;
    if (!target?.matches?.(pickable) || !target.__data__) return;
    event.preventDefault();
    onPick(target.__data__);
  };
  function focusable() {
    if (!onPick) return;
    for (const el of element.querySelectorAll(pickable)) el.setAttribute('tabindex', '0');
  }
  element.addEventListener('keydown', onKey);
  observer.observe(element);
  return () => {
    cancelled = true;
    observer.disconnect();
    element.removeEventListener('keydown', onKey);
    result?.finalize();
    element.replaceChildren();
  };
}
