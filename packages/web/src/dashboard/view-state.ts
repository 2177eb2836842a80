import type { DashboardFilter, Grain, TimeGrain } from './types.ts';

/**
 * What the viewer chose in the dashboard controls. It becomes the widget-data body's `filters` and
 * `timeGrains` (spec 2.5 shapes) and lives in the URL query string, so that a link reproduces the
 * view:
 *   f.<member>=<value>       equals (a picked value)
 *   c.<member>=<text>        contains (typed text)
 *   from.<member>=YYYY-MM-DD and to.<member>=YYYY-MM-DD   a date range, either end open
 *   grain.<member>=week      a time-grain override
 */
export interface ViewState {
  equals: Record<string, string>;
  contains: Record<string, string>;
  ranges: Record<string, { from?: string; to?: string }>;
  grains: Record<string, Grain>;
}

export const emptyState: ViewState = { equals: {}, contains: {}, ranges: {}, grains: {} };

export const grainChoices = ['day', 'week', 'month', 'quarter', 'year'] as const satisfies readonly Grain[];
const allGrains: readonly string[] = ['second', 'minute', 'hour', ...grainChoices];
const isoDate = /^\d{4}-\d{2}-\d{2}$/;

export function parseState(search: string): ViewState {
  const state: ViewState = { equals: {}, contains: {}, ranges: {}, grains: {} };
  for (const [key, value] of new URLSearchParams(search)) {
    const dot = key.indexOf('.');
    if (dot < 1 || value === '') continue;
    const prefix = key.slice(0, dot);
    const member = key.slice(dot + 1);
    if (member === '') continue;
    if (prefix === 'f') state.equals[member] = value;
    else if (prefix === 'c') state.contains[member] = value;
    else if ((prefix === 'from' || prefix === 'to') && isoDate.test(value))
      state.ranges[member] = { ...state.ranges[member], [prefix]: value };
    else if (prefix === 'grain' && allGrains.includes(value)) state.grains[member] = value as Grain;
  }
  return state;
}

const controlPrefixes = ['f.', 'c.', 'from.', 'to.', 'grain.'];

/** `search` with the controls' parameters replaced by `state`'s; other parameters are kept. */
export function writeState(search: string, state: ViewState): string {
  const params = new URLSearchParams(search);
  for (const key of [...params.keys()]) {
    if (controlPrefixes.some((p) => key.startsWith(p))) params.delete(key);
  }
  for (const [m, v] of sorted(state.equals)) params.append(`f.${m}`, v);
  for (const [m, v] of sorted(state.contains)) params.append(`c.${m}`, v);
  for (const [m, r] of sorted(state.ranges)) {
    if (r.from) params.append(`from.${m}`, r.from);
    if (r.to) params.append(`to.${m}`, r.to);
  }
  for (const [m, g] of sorted(state.grains)) params.append(`grain.${m}`, g);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The dashboard filters of a state, in a stable order (they are part of the query keys). */
export function stateFilters(state: ViewState, except?: string): DashboardFilter[] {
  const filters: DashboardFilter[] = [];
  for (const [member, value] of sorted(state.equals)) {
    if (member !== except) filters.push({ member, operator: 'equals', value });
  }
  for (const [member, value] of sorted(state.contains)) {
    if (member !== except) filters.push({ member, operator: 'contains', value });
  }
  for (const [member, { from, to }] of sorted(state.ranges)) {
    if (member === except) continue;
    if (from && to) filters.push({ member, operator: 'inDateRange', values: [from, to] });
    else if (from) filters.push({ member, operator: 'afterOrOnDate', values: [from] });
    else if (to) filters.push({ member, operator: 'beforeOrOnDate', values: [to] });
  }
  return filters;
}

/** The time-grain overrides of a state on the members a widget groups by time. */
export function stateGrains(state: ViewState, members: readonly string[]): TimeGrain[] {
  return sorted(state.grains)
    .filter(([member]) => members.includes(member))
    .map(([member, grain]) => ({ member, grain }));
}

export function isEmptyState(state: ViewState): boolean {
  return (
    Object.keys(state.equals).length +
      Object.keys(state.contains).length +
      Object.keys(state.ranges).length +
      Object.keys(state.grains).length ===
    0
  );
}

function sorted<T>(record: Record<string, T>): [string, T][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
