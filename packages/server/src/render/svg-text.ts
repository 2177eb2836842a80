import { fontFamily, textWidth, verticalMetrics, type Weight } from './fonts.ts';

/** Text for SVG content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface TextStyle {
  fontSize: number;
  weight: Weight;
  color: string;
  anchor?: 'start' | 'middle' | 'end';
}

/** Height of one line box of text of this size. */
export function lineHeight(fontSize: number): number {
  return Math.round(fontSize * 1.35);
}

/** One line of text whose line box starts at `top`, baseline placed from the font's own metrics. */
export function textLine(x: number, top: number, text: string, style: TextStyle): string {
  const { ascent, descent } = verticalMetrics(style.weight);
  const baseline =
    top + (lineHeight(style.fontSize) - (ascent + descent) * style.fontSize) / 2 + ascent * style.fontSize;
  const anchor = style.anchor && style.anchor !== 'start' ? ` text-anchor="${style.anchor}"` : '';
  return (
    `<text x="${round(x)}" y="${round(baseline)}" font-family="${fontFamily}" font-size="${style.fontSize}" ` +
    `font-weight="${style.weight}" fill="${style.color}"${anchor}>${escapeXml(text)}</text>`
  );
}

/** The text cut to fit `width`, with an ellipsis when it had to be cut. */
export function ellipsize(text: string, width: number, fontSize: number, weight: Weight): string {
  if (textWidth(text, fontSize, weight) <= width) return text;
  const chars = [...text];
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (textWidth(`${chars.slice(0, mid).join('').trimEnd()}…`, fontSize, weight) <= width) lo = mid;
    else hi = mid - 1;
  }
  return `${chars.slice(0, lo).join('').trimEnd()}…`;
}

/**
 * Words laid into lines no wider than `width`; a word longer than a line is broken inside. At
 * most `maxLines` lines: the last one ends with an ellipsis when text was left over.
 */
export function wrapText(
  text: string,
  width: number,
  fontSize: number,
  weight: Weight,
  maxLines: number,
): string[] {
  const fits = (s: string) => textWidth(s, fontSize, weight) <= width;
  const lines: string[] = [];
  let line = '';
  const words = text.split(/\s+/).filter((w) => w !== '');
  for (let i = 0; i < words.length; i++) {
    let word = words[i];
    const candidate = line === '' ? word : `${line} ${word}`;
    if (fits(candidate)) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    while (!fits(word)) {
      const head = ellipsize(word, width, fontSize, weight).slice(0, -1) || [...word][0];
      lines.push(head);
      word = word.slice(head.length);
    }
    line = word;
    if (lines.length >= maxLines) break;
  }
  if (line !== '') lines.push(line);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = ellipsize(`${kept[maxLines - 1]}…`, width, fontSize, weight).replace(/…+$/, '…');
  return kept;
}

export function round(n: number): number {
  return Math.round(n * 100) / 100;
}
