import type { ViewState } from './view-state.ts';

/**
 * Cross-filtering (issue 23 item 3): a click on a bar or a slice, or Enter on a focused mark or
 * legend entry, filters the whole dashboard by that value. The filter is an ordinary `equals`
 * choice of the view state (`f.<member>=<value>` in the address), so every tile takes it as it
 * takes the filter controls' choices, and a link reproduces it.
 */

/** The channels a chart's categories sit on: a bar's axis, a slice's or a series' color. */
const categoryChannels = ['x', 'y', 'color'] as const;

/**
 * The member a chart's marks stand for: the first nominal or ordinal field on x, y or color that
 * names a result column. Fields arrive escaped (chart-spec's escapeField: a dot in a field is
 * nested access to Vega-Lite), so the escape is undone to find the member. None for a chart
 * without such a field (a line over time, a single figure).
 */
export function crossFilterMember(spec: Record<string, unknown>, columns: readonly string[]): string | null {
  const encoding = spec.encoding as
    | Record<string, { field?: unknown; type?: unknown } | undefined>
    | undefined;
  if (!encoding) return null;
  for (const channel of categoryChannels) {
    const def = encoding[channel];
    if (!def || typeof def.field !== 'string') continue;
    if (def.type !== 'nominal' && def.type !== 'ordinal') continue;
    const member = def.field.replaceAll('\\.', '.');
    if (columns.includes(member)) return member;
  }
  return null;
}

/** A Vega scenegraph item, as a click or a focused SVG element hands it over. */
export interface PickedItem {
  datum?: unknown;
  mark?: { role?: string };
}

/**
 * The value of `member` a picked item stands for: a mark's row holds it under the member's name,
 * a legend entry's datum as `value`. None for anything else (an axis, the background).
 */
export function pickedValue(item: PickedItem | null | undefined, member: string): string | null {
  if (!item || typeof item.datum !== 'object' || item.datum === null) return null;
  const datum = item.datum as Record<string, unknown>;
  const role = item.mark?.role ?? '';
  const value = role.startsWith('legend') ? datum.value : role === 'mark' ? datum[member] : undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  return null;
}

/** `state` with `member` filtered to `value`, or with that filter removed when it was already on. */
export function toggleCrossFilter(state: ViewState, member: string, value: string): ViewState {
  const equals = { ...state.equals };
  const contains = { ...state.contains };
  if (equals[member] === value) delete equals[member];
  else {
    equals[member] = value;
    // A typed "contains" on the same member would narrow the picked value further: it gives way.
    delete contains[member];
  }
  return { ...state, equals, contains };
}
