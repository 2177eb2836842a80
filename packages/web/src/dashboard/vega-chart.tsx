import { useEffect, useRef } from 'react';
import { drawVegaLazily } from '../charts/draw-vega-lazy.ts';

export interface VegaChartProps {
  /** A Vega-Lite spec with its data inline (chart-spec.ts). */
  spec: Record<string, unknown>;
  /** Vega-Lite config from the dashboard theme (theme.ts). */
  config: Record<string, unknown>;
  /** Called with the spec once its chart is on the page (a later spec may have replaced it since). */
  onDrawn: (spec: Record<string, unknown>) => void;
  onError: (error: Error) => void;
  /** A click on a mark or legend entry, or Enter on a focused one (cross-filter.ts reads the item). */
  onPick?: (item: unknown) => void;
}

/** One drawing of a spec: its own layer in the chart's box, and how to stop and remove it. */
interface Layer {
  element: HTMLElement;
  stop: () => void;
}

/**
 * A Vega-Lite chart drawn as SVG at the size of its box, redrawn at the new size when the box
 * changes (a breakpoint, a window resize). Drawn by charts/draw-vega.ts (no
 * 'unsafe-eval', no style elements: charts/vega-options.ts); dashboard.css styles the tooltip.
 *
 * A new spec (new rows, a new grain) is drawn into a hidden layer above the chart on the page,
 * which stays until the new one is drawn and then gives way: the tile never goes blank between
 * two charts (drawing takes a while on a busy machine).
 */
export function VegaChart({ spec, config, onDrawn, onError, onPick }: VegaChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const callbacks = useRef({ onDrawn, onError, onPick });
  callbacks.current = { onDrawn, onError, onPick };
  const pickable = onPick !== undefined;
  /** The chart on the page (null before the first is drawn). */
  const shown = useRef<Layer | null>(null);

  useEffect(() => {
    const container = box.current;
    if (!container) return;
    const element = document.createElement('div');
    element.className = 'tsr-chart-layer';
    element.hidden = shown.current !== null;
    container.append(element);
    let drawn = false;
    const layer: Layer = {
      element,
      stop: drawVegaLazily(element, spec, {
        config,
        size: () => ({
          width: Math.max(40, Math.floor(element.clientWidth || container.clientWidth)),
          height: Math.max(40, Math.floor(element.clientHeight || container.clientHeight)),
        }),
        onDrawn: () => {
          drawn = true;
          const previous = shown.current;
          shown.current = layer;
          element.hidden = false;
          // A keyboard user who picked a mark stays on the chart when the new one replaces it.
          // (a mouse pick gets no focus ring on the new chart: only a keyboard one, focus-visible)
          const active = document.activeElement;
          const hadFocus =
            active !== null &&
            (previous?.element.contains(active) ?? false) &&
            active.matches(':focus-visible');
          if (previous && previous !== layer) remove(previous);
          if (hadFocus) element.querySelector<SVGElement>('[tabindex]')?.focus();
          callbacks.current.onDrawn(spec);
        },
        onError: (error) =>
          callbacks.current.onError(error instanceof Error ? error : new Error(String(error))),
        onPick: pickable ? (item) => callbacks.current.onPick?.(item) : undefined,
      }),
    };
    return () => {
      // Replaced by a newer spec: a drawn chart stays on the page until the newer one is drawn
      // (its onDrawn removes it); a drawing still under way is dropped.
      if (!drawn) remove(layer);
    };
  }, [spec, config, pickable]);

  // Unmounted: the chart on the page goes too.
  useEffect(
    () => () => {
      if (shown.current) remove(shown.current);
      shown.current = null;
    },
    [],
  );

  return <div ref={box} className="tsr-chart" data-pickable={pickable || undefined} />;
}

function remove(layer: Layer) {
  layer.stop();
  layer.element.remove();
}
