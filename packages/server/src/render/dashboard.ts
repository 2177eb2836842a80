import { renderChart, scopeIds } from './chart.ts';
import { layoutGrid, type Tile } from './grid.ts';
import { lineHeight, round, textLine, wrapText } from './svg-text.ts';
import { type ResolvedTheme, resolveTheme, vegaLiteConfig } from './theme.ts';
import type { DashboardRenderInput, FailedWidget, RenderedDashboard, WidgetContent } from './types.ts';

/**
 * A whole dashboard as one SVG (DESIGN.md "Notifications and rendering"): the title and
 * description on top, then every widget in its tile on the grid at the `lg` breakpoint. A widget
 * without a chart is never a silent blank: an error is written into its tile and reported in
 * `failedWidgets` (so that a scheduled run can be marked partly failed); a widget whose query
 * returned no rows says so.
 */

const header = { top: 16, titleSize: 22, descriptionSize: 13, descriptionLines: 2, gap: 4 } as const;
/** Below this many pixels of width or height a tile draws no chart. */
const minChart = 24;
const errorColours = { fill: '#fef3f2', stroke: '#fda29b', heading: '#b42318' } as const;

export const minWidth = 320;
export const maxWidth = 8000;

export async function renderDashboard(input: DashboardRenderInput): Promise<RenderedDashboard> {
  const width = Math.round(input.width);
  if (!(width >= minWidth && width <= maxWidth)) {
    throw new RangeError(`width must be from ${minWidth} to ${maxWidth} pixels, not ${input.width}`);
  }
  const theme = resolveTheme(input.config.theme);
  const grid = layoutGrid(input.config.layout, input.config.widgets ?? [], width);
  const top = drawHeader(input.config.title, input.config.description, width, grid.padding[0], theme);
  const height = top.height + grid.height;

  const failedWidgets: FailedWidget[] = [];
  const tiles: string[] = [];
  const config = vegaLiteConfig(theme);
  for (const [index, tile] of grid.tiles.entries()) {
    const content: WidgetContent = input.content[tile.id] ?? {
      title: tile.id,
      error: 'No content was given for this widget',
    };
    const drawn = await drawTile(tile, content, theme, config, `w${index}-`);
    if (drawn.error !== null) failedWidgets.push({ id: tile.id, title: content.title, error: drawn.error });
    tiles.push(drawn.svg);
  }

  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" ` +
    `width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<rect width="${width}" height="${height}" fill="${theme.background}"/>` +
    top.svg +
    `<g transform="translate(0,${top.height})">${tiles.join('')}</g></svg>`;
  return { svg, width, height, failedWidgets };
}

function drawHeader(
  title: string | null | undefined,
  description: string | null | undefined,
  width: number,
  left: number,
  theme: ResolvedTheme,
): { svg: string; height: number } {
  const textWidth = width - 2 * left;
  const parts: string[] = [];
  let y = header.top;
  if (title?.trim()) {
    const [line] = wrapText(title.trim(), textWidth, header.titleSize, 600, 1);
    parts.push(
      textLine(left, y, line, { fontSize: header.titleSize, weight: 600, color: theme.title.color }),
    );
    y += lineHeight(header.titleSize);
  }
  if (description?.trim()) {
    if (parts.length > 0) y += header.gap;
    const style = { fontSize: header.descriptionSize, weight: 400, color: theme.text.secondary } as const;
    for (const line of wrapText(
      description.trim(),
      textWidth,
      style.fontSize,
      400,
      header.descriptionLines,
    )) {
      parts.push(textLine(left, y, line, style));
      y += lineHeight(style.fontSize);
    }
  }
  return parts.length === 0 ? { svg: '', height: 0 } : { svg: parts.join(''), height: y };
}

async function drawTile(
  tile: Tile,
  content: WidgetContent,
  theme: ResolvedTheme,
  config: Record<string, unknown>,
  idPrefix: string,
): Promise<{ svg: string; error: string | null }> {
  const { padding, borderWidth: bw } = theme.tile;
  const titleHeight = lineHeight(theme.title.fontSize);
  const area = {
    x: padding,
    y: padding + titleHeight + 6,
    width: Math.max(1, tile.width - 2 * padding),
    height: Math.max(1, tile.height - 2 * padding - titleHeight - 6),
  };
  const frame =
    `<rect x="${bw / 2}" y="${bw / 2}" width="${Math.max(0, tile.width - bw)}" ` +
    `height="${Math.max(0, tile.height - bw)}" rx="${theme.tile.radius}" fill="${theme.tile.background}"` +
    (bw > 0 ? ` stroke="${theme.tile.borderColor}" stroke-width="${bw}"` : '') +
    (theme.tile.borderDash ? ` stroke-dasharray="${theme.tile.borderDash}"` : '') +
    '/>';
  const [title] = wrapText(content.title, area.width, theme.title.fontSize, theme.title.weight, 1);
  const heading = textLine(padding, padding, title ?? '', {
    fontSize: theme.title.fontSize,
    weight: theme.title.weight,
    color: theme.title.color,
  });

  let body = '';
  let error = 'error' in content ? content.error : null;
  if (!('error' in content)) {
    if (content.rows.length === 0) {
      body = notice(area, 'No data to show', theme);
    } else if (area.width < minChart || area.height < minChart) {
      // A tile laid out too small for a chart shows its title only: that is its author's layout.
    } else {
      try {
        body = placeChart(area, await renderChart(content.vegaSpec, content.rows, area, config), idPrefix);
      } catch (e) {
        error = `The chart could not be drawn: ${e instanceof Error ? e.message : String(e)}`;
      }
    }
  }
  if (error !== null) body = errorBox(area, error, theme);
  // Nothing a chart draws may spill out of its tile onto the next one.
  const clipId = `${idPrefix}tile`;
  const clip =
    `<clipPath id="${clipId}"><rect x="${bw}" y="${bw}" width="${Math.max(0, tile.width - 2 * bw)}" ` +
    `height="${Math.max(0, tile.height - 2 * bw)}" rx="${theme.tile.radius}"/></clipPath>`;
  return {
    svg:
      `<g transform="translate(${tile.x},${tile.y})">${clip}${frame}${heading}` +
      `<g clip-path="url(#${clipId})">${body}</g></g>`,
    error,
  };
}

type Area = { x: number; y: number; width: number; height: number };

/** The chart at the area's corner, scaled down if vega could not fit it (facets and concatenations). */
function placeChart(
  area: Area,
  chart: { body: string; width: number; height: number },
  idPrefix: string,
): string {
  const scale = Math.min(1, area.width / (chart.width || 1), area.height / (chart.height || 1));
  const transform = `translate(${area.x},${area.y})${scale < 0.999 ? ` scale(${round(scale)})` : ''}`;
  return `<g transform="${transform}">${scopeIds(chart.body, idPrefix)}</g>`;
}

function notice(area: Area, text: string, theme: ResolvedTheme): string {
  const size = 13;
  return textLine(area.x + area.width / 2, area.y + (area.height - lineHeight(size)) / 2, text, {
    fontSize: size,
    weight: 400,
    color: theme.text.secondary,
    anchor: 'middle',
  });
}

/** The error written into the tile: a tinted box, a heading, and as much of the message as fits. */
function errorBox(area: Area, message: string, theme: ResolvedTheme): string {
  const inset = 10;
  const size = 12;
  const line = lineHeight(size);
  const width = area.width - 2 * inset;
  const room = Math.floor((area.height - 2 * inset) / line) - 1;
  const lines = wrapText(message, width, size, 400, Math.max(1, room));
  let y = area.y + inset;
  const parts = [
    `<rect x="${area.x}" y="${area.y}" width="${area.width}" height="${area.height}" rx="6" ` +
      `fill="${errorColours.fill}" stroke="${errorColours.stroke}" stroke-width="1"/>`,
    textLine(area.x + inset, y, 'This widget could not be shown', {
      fontSize: size,
      weight: 600,
      color: errorColours.heading,
    }),
  ];
  for (const text of lines) {
    y += line;
    parts.push(textLine(area.x + inset, y, text, { fontSize: size, weight: 400, color: theme.text.color }));
  }
  return parts.join('');
}
