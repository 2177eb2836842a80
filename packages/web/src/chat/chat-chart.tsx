import { useEffect, useRef, useState } from 'react';
import type { EmbedOptions } from 'vega-embed';
import { drawVegaLazily } from '../charts/draw-vega-lazy.ts';
import type { ChartItem } from './conversation.ts';

/** Vega-Lite's look in the panel: the app's font and accent (styles.css), quiet axes. */
const CONFIG: EmbedOptions['config'] = {
  font: 'Inter, system-ui, sans-serif',
  background: 'transparent',
  view: { stroke: null },
  title: { fontSize: 13, fontWeight: 600, color: '#1c2230', anchor: 'start' as const, offset: 8 },
  axis: {
    labelColor: '#5d6675',
    titleColor: '#5d6675',
    labelFontSize: 11,
    titleFontSize: 11,
    titleFontWeight: 500,
    gridColor: '#e2e5ea',
    domainColor: '#cdd2da',
    tickColor: '#cdd2da',
  },
  legend: { labelColor: '#5d6675', titleColor: '#5d6675', labelFontSize: 11, titleFontSize: 11 },
  range: {
    category: ['#3b5bdb', '#12b886', '#f59f00', '#e64980', '#7950f2', '#15aabf', '#fa5252', '#82c91e'],
  },
  mark: { color: '#3b5bdb' },
  text: { color: '#1c2230' },
};

/** A single figure (a `text` mark) needs little height; a plot more. */
const heightOf = (spec: Record<string, unknown>) =>
  (spec.mark as { type?: string } | undefined)?.type === 'text' || spec.mark === 'text' ? 90 : 240;

/**
 * A tool result's chart (spec 4.6: the `vegaSpec` carries no data; it is drawn from the result's
 * rows), as SVG at the width of the panel (charts/draw-vega.ts).
 */
export function ChatChart({ chart, onDrawn }: { chart: ChartItem; onDrawn?: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  const drawn = useRef(onDrawn);
  drawn.current = onDrawn;
  const [state, setState] = useState<'drawing' | 'drawn' | 'failed'>('drawing');

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const { title: _title, ...spec } = chart.spec;
    return drawVegaLazily(
      element,
      {
        ...spec,
        // Vega mutates the values it is given (it parses dates in place): it gets copies
        data: { values: chart.rows.map((row) => ({ ...row })) },
        height: heightOf(chart.spec),
      },
      {
        config: CONFIG,
        size: () => ({ width: Math.max(120, Math.floor(element.clientWidth)) }),
        onDrawn: () => {
          setState('drawn');
          drawn.current?.();
        },
        onError: () => {
          setState('failed');
        },
      },
    );
  }, [chart]);

  return (
    <figure className="tsr-chat-chart" data-chart-state={state}>
      <figcaption>{chart.title}</figcaption>
      <div
        ref={box}
        className="tsr-chat-chart-canvas"
        role="img"
        aria-label={`Chart: ${chart.title}, ${chart.rows.length} ${chart.rows.length === 1 ? 'row' : 'rows'}`}
      />
      {state === 'failed' && <p className="tsr-chat-note">This chart could not be drawn.</p>}
    </figure>
  );
}
