import { useEffect, useRef } from 'react';
import embed, { type Result, type VisualizationSpec } from 'vega-embed';
import { vegaEmbedOptions } from '../charts/vega-options.ts';

export interface VegaChartProps {
  /** A Vega-Lite spec with its data inline (chart-spec.ts). */
  spec: Record<string, unknown>;
  /** Vega-Lite config from the dashboard theme (theme.ts). */
  config: Record<string, unknown>;
  /** Called with the spec once its chart is on the page (a later spec may have replaced it since). */
  onDrawn: (spec: Record<string, unknown>) => void;
  onError: (error: Error) => void;
}

/**
 * A Vega-Lite chart drawn as SVG at the size of its box, redrawn at the new size when the box
 * changes (a breakpoint, a window resize). Options (no 'unsafe-eval', no style elements):
 * charts/vega-options.ts; dashboard.css styles the tooltip.
 */
export function VegaChart({ spec, config, onDrawn, onError }: VegaChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const callbacks = useRef({ onDrawn, onError });
  callbacks.current = { onDrawn, onError };

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let result: Result | null = null;
    let cancelled = false;
    const size = () => ({
      width: Math.max(40, Math.floor(element.clientWidth)),
      height: Math.max(40, Math.floor(element.clientHeight)),
    });
    const first = size();
    embed(
      element,
      {
        ...spec,
        width: first.width,
        height: first.height,
        autosize: { type: 'fit', contains: 'padding' },
      } as VisualizationSpec,
      vegaEmbedOptions(config),
    )
      .then((embedded) => {
        if (cancelled) {
          embedded.finalize();
          return;
        }
        result = embedded;
        callbacks.current.onDrawn(spec);
      })
      .catch((error: unknown) => {
        if (!cancelled) callbacks.current.onError(error instanceof Error ? error : new Error(String(error)));
      });
    let last = first;
    const observer = new ResizeObserver(() => {
      const next = size();
      if (!result || (next.width === last.width && next.height === last.height)) return;
      last = next;
      result.view.width(next.width).height(next.height).runAsync();
    });
    observer.observe(element);
    return () => {
      cancelled = true;
      observer.disconnect();
      result?.finalize();
      element.replaceChildren();
    };
  }, [spec, config]);

  return <div ref={box} className="tsr-chart" />;
}
