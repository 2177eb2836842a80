import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { textWidth } from './fonts.ts';
import { renderDashboard } from './index.ts';
import { svgTexts } from './test-support.ts';
import type { DashboardRenderInput, DashboardTheme, WidgetContent } from './types.ts';

const vegaLite = 'https://vega.github.io/schema/vega-lite/v5.json';
const bars: WidgetContent = {
  title: 'Revenue',
  vegaSpec: {
    $schema: vegaLite,
    mark: 'bar',
    encoding: { x: { field: 'k', type: 'nominal' }, y: { field: 'v', type: 'quantitative' } },
  },
  rows: [
    { k: 'a', v: 1 },
    { k: 'b', v: 2 },
  ],
};

function oneWidget(content: WidgetContent | null, extra: Partial<DashboardRenderInput['config']> = {}) {
  return renderDashboard({
    width: 800,
    config: {
      title: 'Board',
      layout: { rowHeight: 40 },
      widgets: [{ id: 'w', position: { x: 0, y: 0, w: 6, h: 6 } }],
      ...extra,
    },
    content: content === null ? {} : { w: content },
  });
}

describe('dashboard rendering: what a widget shows when it has no chart', () => {
  it('refuses to read external data named by a spec, and reports the widget as failed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-render-'));
    const file = path.join(dir, 'secret.csv');
    writeFileSync(file, 'secret\nTOPSECRET42\n');
    const reading: WidgetContent = {
      title: 'Reads a file',
      vegaSpec: {
        $schema: vegaLite,
        layer: [
          { mark: 'point', encoding: { x: { field: 'v', type: 'quantitative' } } },
          { data: { url: pathToFileURL(file).href }, mark: 'text', encoding: { text: { field: 'secret' } } },
        ],
      },
      rows: [{ v: 1 }],
    };
    const rendered = await oneWidget(reading);
    expect(rendered.svg).not.toContain('TOPSECRET42');
    expect(rendered.failedWidgets).toEqual([
      {
        id: 'w',
        title: 'Reads a file',
        error: `The chart could not be drawn: external data is not loaded when rendering a dashboard: ${pathToFileURL(file).href}`,
      },
    ]);
  });

  it('reports a spec that vega cannot draw, with its message in the tile', async () => {
    const broken: WidgetContent = {
      title: 'Broken',
      vegaSpec: { $schema: vegaLite, mark: 'nonsense' },
      rows: [{ a: 1 }],
    };
    const rendered = await oneWidget(broken);
    expect(rendered.failedWidgets).toHaveLength(1);
    expect(rendered.failedWidgets[0].error).toMatch(/^The chart could not be drawn: ./);
    expect(svgTexts(rendered.svg)).toContain('This widget could not be shown');
  });

  it('reports a widget of the layout that was given no content', async () => {
    const rendered = await oneWidget(null);
    expect(rendered.failedWidgets).toEqual([
      { id: 'w', title: 'w', error: 'No content was given for this widget' },
    ]);
    expect(svgTexts(rendered.svg)).toContain('No content was given for this widget');
  });

  it('draws a chart with rows and reports nothing failed', async () => {
    const rendered = await oneWidget(bars);
    expect(rendered.failedWidgets).toEqual([]);
    expect(rendered.svg).toContain('role-mark');
  });
});

describe('dashboard rendering: a figure fits its tile', () => {
  it('draws a figure wider than its tile at a smaller size, whole instead of cut on both sides', async () => {
    const figure: WidgetContent = {
      title: 'Revenue',
      vegaSpec: {
        $schema: vegaLite,
        mark: { type: 'text', fontSize: 48, fontWeight: 'bold' },
        encoding: { text: { field: 'v', type: 'quantitative', format: '$,.0f' } },
      },
      rows: [{ v: 252717729.4 }],
    };
    const { svg } = await renderDashboard({
      width: 800,
      config: { layout: { rowHeight: 40 }, widgets: [{ id: 'w', position: { x: 0, y: 0, w: 3, h: 3 } }] },
      content: { w: figure },
    });
    const text = /<text\b[^>]*font-size="([\d.]+)px"[^>]*>\$252,717,729<\/text>/.exec(svg);
    expect(text).not.toBeNull();
    const size = Number(text?.[1]);
    // A quarter of 800 pixels is at most 200 wide: at 48 pixels the figure would not fit.
    expect(textWidth('$252,717,729', 48, 600)).toBeGreaterThan(200);
    expect(size).toBeLessThan(48);
    expect(size).toBeGreaterThanOrEqual(18);
    expect(textWidth('$252,717,729', size, 600)).toBeLessThanOrEqual(200 - 2 * 12);
  });

  it('leaves a figure that fits at its own size', async () => {
    const { svg } = await oneWidget({
      title: 'Orders',
      vegaSpec: {
        $schema: vegaLite,
        mark: { type: 'text', fontSize: 48 },
        encoding: { text: { field: 'v' } },
      },
      rows: [{ v: 42 }],
    });
    expect(svg).toMatch(/<text\b[^>]*font-size="48px"[^>]*>42<\/text>/);
  });
});

describe('dashboard rendering: user text and theme values are data, never markup', () => {
  it('escapes titles, descriptions and errors', async () => {
    const title = '<script>alert("x")</script> & co';
    const rendered = await oneWidget(
      { title, error: 'column "a<b" failed' },
      { title, description: "<img src=x onerror='y'>" },
    );
    expect(rendered.svg).not.toMatch(/<script|<img/);
    const texts = svgTexts(rendered.svg);
    expect(texts.filter((t) => t === title)).toHaveLength(2);
    expect(texts).toContain("<img src=x onerror='y'>");
    expect(texts).toContain('column "a<b" failed');
  });

  it('replaces a theme value that is not a colour with the default', async () => {
    const theme: DashboardTheme = {
      backgroundColor: 'red" onload="alert(1)',
      widgets: { backgroundColor: 'url(#x)' },
    };
    const rendered = await oneWidget(bars, { theme });
    expect(rendered.svg).not.toContain('onload');
    expect(rendered.svg).not.toContain('url(#x)');
    expect(rendered.svg).toMatch(/^<svg[^>]*><rect width="800" height="\d+" fill="#f4f5f7"\/>/);
  });

  it("applies the theme's colours to the page, tiles and marks", async () => {
    const theme: DashboardTheme = {
      backgroundColor: '#101820',
      primaryColor: '#ff6f61',
      widgets: { backgroundColor: '#fafafa', border: { color: '#123456', width: '2px', style: 'dashed' } },
    };
    const { svg } = await oneWidget(bars, { theme });
    expect(svg).toContain('fill="#101820"');
    expect(svg).toMatch(/fill="#fafafa" stroke="#123456" stroke-width="2" stroke-dasharray="8 6"/);
    expect(svg).toMatch(/<path[^>]*fill="#ff6f61"/); // the bars
  });

  it('draws every text with the shipped font, whatever family the theme names', async () => {
    const theme: DashboardTheme = {
      fontFamily: 'Comic Sans MS',
      widgets: { title: { fontFamily: 'Papyrus' } },
    };
    const { svg } = await oneWidget(bars, { theme });
    const families = new Set([...svg.matchAll(/font-family="([^"]*)"/g)].map((m) => m[1]));
    expect(families).toEqual(new Set(['Inter']));
  });

  it('refuses a width outside 320 to 8000 pixels', async () => {
    await expect(renderDashboard({ width: 100, config: {}, content: {} })).rejects.toThrow(
      'width must be from 320 to 8000 pixels, not 100',
    );
  });
});
