import { useEffect, useRef } from 'react';
import { drawVega } from '../charts/draw-vega.ts';

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
 * changes (a breakpoint, a window resize). Drawn by charts/draw-vega.ts (no
 * 'unsafe-eval', no style elements: charts/vega-options.ts); dashboard.css styles the tooltip.
 */
export function VegaChart({ spec, config, onDrawn, onError }: VegaChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const callbacks = useRef({ onDrawn, onError });
  callbacks.current = { onDrawn, onError };

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    return drawVega(element, spec, {
      config,
      size: () => ({
        width: Math.max(40, Math.floor(element.clientWidth)),
        height: Math.max(40, Math.floor(element.clientHeight)),
      }),
      onDrawn: () => callbacks.current.onDrawn(spec),
      onError: (error) =>
        callbacks.current.onError(error instanceof Error ? error : new Error(String(error))),
    });
  }, [spec, config]);

  return <div ref={box} className="tsr-chart" />;
}
