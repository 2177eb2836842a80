import { renderChart, scopeIds } from './chart.ts';
import { textWidth } from './fonts.ts';
import { layoutGrid, type Tile } from './grid.ts';
import { ellipsize, lineHeight, round, textLine, wrapText } from './svg-text.ts';
import { type ResolvedTheme, resolveTheme, vegaLiteConfig } from './theme.ts';
import type {
  DashboardRenderInput,
  FailedWidget,
  RenderedDashboard,
  TableContent,
  WidgetContent,
} from './types.ts';

/**
 * A whole dashboard as one SVG (DESIGN.md "Notifications and rendering"): inside the page's
 * padding, the title and description on top, then every widget in its tile on the grid at the
 * `lg` breakpoint. A widget
 * without a chart is never a silent blank: an error is written into its tile and reported in
 * `failedWidgets` (so that a scheduled run can be marked partly failed); a widget whose query
 * returned no rows says so.
 */

/** `gap` between title and description, `below` between the header and the grid. */
const header = { titleSize: 22, descriptionSize: 13, descriptionLines: 2, gap: 4, below: 12 } as const;
/** A table widget: 12-pixel text, rows of 24 pixels, 8 pixels either side of a cell's text. */
const table = { fontSize: 12, rowHeight: 24, cellPadding: 8, rule: '#e4e7eb', stripe: '#f7f8fa' } as const;
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
  // The page's padding never takes more than a quarter of the width off each side.
  const pad = Math.min(theme.pagePadding, Math.floor(width / 4));
  const grid = layoutGrid(input.config.layout, input.config.widgets ?? [], width - 2 * pad);
  const top = drawHeader(
    input.config.title,
    input.config.description,
    width - 2 * pad,
    grid.padding[0],
    theme,
  );
  const gridTop = pad + top.height;
  const height = gridTop + grid.height + pad;

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
    `<g transform="translate(${pad},${pad})">${top.svg}</g>` +
    `<g transform="translate(${pad},${gridTop})">${tiles.join('')}</g></svg>`;
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
  let y = 0;
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
  return parts.length === 0 ? { svg: '', height: 0 } : { svg: parts.join(''), height: y + header.below };
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
    if (('table' in content ? content.table.rows : content.rows).length === 0) {
      body = notice(area, 'No data to show', theme);
    } else if (area.width < minChart || area.height < minChart) {
      // A tile laid out too small for a chart shows its title only: that is its author's layout.
    } else if ('table' in content) {
      body = drawTable(area, content.table, theme);
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

/**
 * The web viewer's table (data-table.tsx) in the tile: a header row of column titles, then as many
 * rows as fit, the last line saying how many more there are. Numbers are right-aligned. Columns
 * get their text's width, the room left over shared among them; when the text is wider than the
 * tile every column is narrowed in proportion and its cells cut with an ellipsis.
 */
function drawTable(area: Area, content: TableContent, theme: ResolvedTheme): string {
  const { fontSize, rowHeight, cellPadding } = table;
  const capacity = Math.max(0, Math.floor(area.height / rowHeight) - 1);
  const fitsAll = content.rows.length <= capacity;
  const shown = content.rows.slice(0, fitsAll ? capacity : Math.max(0, capacity - 1));
  const natural = content.columns.map(
    (c, i) =>
      Math.max(
        textWidth(c.title, fontSize, 600),
        ...shown.map((row) => textWidth(row[i] ?? '', fontSize, 400)),
      ) +
      2 * cellPadding,
  );
  const total = natural.reduce((a, b) => a + b, 0) || 1;
  const widths =
    total <= area.width
      ? natural.map((w) => w + (area.width - total) / natural.length)
      : natural.map((w) => (w * area.width) / total);
  const lefts = widths.map((_, i) => widths.slice(0, i).reduce((a, b) => a + b, area.x));
  const textTop = (rowHeight - lineHeight(fontSize)) / 2;
  const cells = (texts: string[], top: number, weight: 400 | 600, color: string) =>
    content.columns
      .map((c, i) => {
        const room = Math.max(0, widths[i] - 2 * cellPadding);
        const text = ellipsize(texts[i] ?? '', room, fontSize, weight);
        const x = c.numeric ? lefts[i] + widths[i] - cellPadding : lefts[i] + cellPadding;
        const anchor = c.numeric ? 'end' : 'start';
        return textLine(x, top + textTop, text, { fontSize, weight, color, anchor });
      })
      .join('');
  const rule = (y: number) =>
    `<line x1="${round(area.x)}" x2="${round(area.x + area.width)}" y1="${round(y)}" y2="${round(y)}" ` +
    `stroke="${table.rule}" stroke-width="1"/>`;
  const parts = [
    cells(
      content.columns.map((c) => c.title),
      area.y,
      600,
      theme.text.secondary,
    ),
    rule(area.y + rowHeight - 0.5),
  ];
  shown.forEach((row, r) => {
    const top = area.y + rowHeight * (r + 1);
    if (r % 2 === 1)
      parts.push(
        `<rect x="${round(area.x)}" y="${round(top)}" width="${round(area.width)}" height="${rowHeight}" ` +
          `fill="${table.stripe}"/>`,
      );
    parts.push(cells(row, top, 400, theme.text.color));
  });
  const more = content.rows.length - shown.length;
  if (more > 0) {
    const top = area.y + rowHeight * (shown.length + 1);
    parts.push(
      textLine(area.x + cellPadding, top + textTop, `and ${more} more row${more === 1 ? '' : 's'}`, {
        fontSize,
        weight: 400,
        color: theme.text.secondary,
      }),
    );
  }
  return parts.join('');
}

/** The chart at the area's corner, scaled down if vega could not fit it (facets and concatenations). */
function placeChart(
  area: Area,
  chart: { body: string; width: number; height: number },
  idPrefix: string,
): string {
  const scale = Math.min(1, area.width / (chart.width || 1), area.height / (chart.height || 1));
  const transform = `translate(${area.x},${area.y})${scale < 0.999 ? ` scale(${round(scale)})` : ''}`;
  // A spec naming a field its rows lack makes vega write "undefined" (or "null", "NaN") as text;
  // a reader of the image must never see that: such a label is left empty.
  const body = scopeIds(chart.body, idPrefix).replace(/>(undefined|null|NaN)<\/text>/g, '></text>');
  return `<g transform="${transform}">${body}</g>`;
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
