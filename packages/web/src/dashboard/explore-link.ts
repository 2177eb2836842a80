import { type ExploreQuery, writeState } from '../explore/query-state.ts';
import type { DashboardFilter, SemanticQuery } from './types.ts';

/**
 * Explore's address for a tile's query with the dashboard's filters as they are chosen (issue 23
 * item 3, "open in Explore"): equals and contains become member filters, a date range the time
 * dimension's range, so that Explore opens on the rows the tile drew.
 */
export function exploreSearch(query: SemanticQuery, filters: readonly DashboardFilter[]): string {
  const explore: ExploreQuery = { ...(query as ExploreQuery) };
  const memberFilters = [...(explore.filters ?? [])];
  let timeDimensions = [...(explore.timeDimensions ?? [])];
  for (const f of filters) {
    if (f.operator === 'equals' || f.operator === 'contains') {
      memberFilters.push({ member: f.member, operator: f.operator, values: [f.value ?? ''] });
    } else {
      const range = f.operator === 'inDateRange' ? f.values : undefined;
      const operator = f.operator === 'inDateRange' ? 'inDateRange' : f.operator;
      if (range && timeDimensions.some((t) => t.dimension === f.member))
        timeDimensions = timeDimensions.map((t) =>
          t.dimension === f.member ? { ...t, dateRange: range } : t,
        );
      else memberFilters.push({ member: f.member, operator, values: f.values ?? [] });
    }
  }
  return writeState({ ...explore, filters: memberFilters, timeDimensions }, null);
}
