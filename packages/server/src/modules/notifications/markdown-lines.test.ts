import { describe, expect, it } from 'vitest';
import { renderDashboard } from '../../render/index.ts';
import { svgTexts } from '../../render/test-support.ts';
import { markdownLines } from './markdown-lines.ts';
import { textSpec } from './widget-content.ts';

const notes = [
  '# Weekly numbers',
  '',
  'Revenue is **up** this week; see [the report](https://example.com) and `orders.count`.',
  '',
  '## What changed',
  '',
  '- more *orders*',
  '- fewer returns',
  '  1. in toys',
  '  2. in music',
  '',
  '<script>alert(1)</script>',
  '',
  '> Quoted',
].join('\n');

/** A text widget in a notification's image reads as the page shows its Markdown (issue 23). */
describe('text widgets in a rendered dashboard', () => {
  it('lays out headings, paragraphs and lists without their Markdown marks, raw HTML dropped', () => {
    const lines = markdownLines(notes);
    expect(lines.map((l) => l.text)).toEqual([
      'Weekly numbers',
      'Revenue is up this week; see the report and orders.count.',
      'What changed',
      '• more orders',
      '• fewer returns',
      '   1. in toys',
      '   2. in music',
      '│ Quoted',
    ]);
    expect(lines[0]).toMatchObject({ size: 20, weight: 'bold' });
    expect(lines[1]).toMatchObject({ size: 12, weight: 'normal' });
    expect(lines[2]).toMatchObject({ size: 17, weight: 'bold' });
    // Each line below the one before it, with more room after a heading than inside a list.
    for (let i = 1; i < lines.length; i++) expect(lines[i].y).toBeGreaterThan(lines[i - 1].y);
    expect(lines[4].y - lines[3].y).toBeLessThan(lines[1].y - lines[0].y);
  });

  it('draws a heading widget as one heading', () => {
    expect(markdownLines('Sales **overview**', true)).toEqual([
      { line: 0, y: 2, text: 'Sales overview', size: 20, weight: 'bold' },
    ]);
  });

  it('draws the lines in the image: the words, bold headings, no # or ** left', async () => {
    const rendered = await renderDashboard({
      width: 800,
      config: { layout: { rowHeight: 40 }, widgets: [{ id: 't', position: { x: 0, y: 0, w: 12, h: 8 } }] },
      content: { t: { title: '', vegaSpec: textSpec(), rows: markdownLines(notes) as never } },
    });
    expect(rendered.failedWidgets).toEqual([]);
    const texts = svgTexts(rendered.svg);
    expect(texts).toContain('Weekly numbers');
    expect(texts).toContain('• fewer returns');
    expect(texts.join('\n')).not.toMatch(/\*\*|^#|<script>/m);
    const heading = rendered.svg.match(/<text\b[^>]*>Weekly numbers<\/text>/)?.[0] ?? '';
    expect(heading).toMatch(/font-weight="bold"/);
    expect(heading).toMatch(/font-size="20(px)?"/);
  });
});
