import type { CubeQuery } from '@tessera/semantic';
import type { Static } from 'typebox';
import type { Viewer } from '../dashboard-data/viewer.ts';
import type { DataCaller } from '../data/caller.ts';
import { settled } from '../data/outcome.ts';
import type { DataService } from '../data/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { AlertCondition, AlertQuery } from './schemas.ts';

type Query = Static<typeof AlertQuery>;
type Condition = Static<typeof AlertCondition>;

/** What one read of the measure gave, and whether the condition holds on it. */
export interface Reading {
  value: number | null;
  previousValue: number | null;
  conditionMet: boolean;
}

/**
 * Reads an alert's measure through the data API's own compile and run (modules/data), under a
 * viewer's security context, so that row-level policies apply exactly as on a dashboard. Every
 * read bypasses the result cache (`renewQuery`): an alert must see the data as it is now.
 */
export class MeasureReader {
  constructor(
    private readonly deps: {
      deployments: Pick<DeploymentsService, 'require'>;
      data: Pick<DataService, 'meta' | 'compile' | 'run'>;
    },
  ) {}

  async caller(viewer: Viewer, deploymentId: number): Promise<DataCaller> {
    return {
      deployment: await this.deps.deployments.require(viewer.tenantId, deploymentId),
      securityContext: viewer.securityContext,
      branch: 'main',
      ...(viewer.kind === 'user' ? { accountUserId: viewer.userId } : {}),
    };
  }

  /** The model's members as `viewer` sees them: measures, and dimensions with their type. */
  async members(viewer: Viewer, deploymentId: number) {
    const meta = await this.deps.data.meta(await this.caller(viewer, deploymentId), false);
    const measures = new Set<string>();
    const dimensions = new Map<string, string>();
    for (const cube of (meta.cubes ?? []) as {
      measures?: { name: string }[];
      dimensions?: { name: string; type?: string }[];
    }[]) {
      for (const m of cube.measures ?? []) measures.add(m.name);
      for (const d of cube.dimensions ?? []) dimensions.set(d.name, d.type ?? 'string');
    }
    return { measures, dimensions };
  }

  /** Compiles without running: a query the semantic layer refuses throws its error. */
  async compile(viewer: Viewer, deploymentId: number, query: Query): Promise<void> {
    await this.deps.data.compile(await this.caller(viewer, deploymentId), cubeQuery(query));
  }

  async read(viewer: Viewer, deploymentId: number, query: Query, condition: Condition): Promise<Reading> {
    const caller = await this.caller(viewer, deploymentId);
    const compiled = await this.deps.data.compile(caller, cubeQuery(query));
    const result = await settled(await this.deps.data.run(caller, compiled));
    return evaluate(query, condition, result.parts[0].rows as Record<string, unknown>[]);
  }
}

/** The alert's query in Cube's shape: one measure, by period when it has a time dimension. */
export function cubeQuery(query: Query): CubeQuery {
  const td = query.timeDimension ?? null;
  return {
    measures: [query.measure],
    ...(query.filters?.length
      ? {
          filters: query.filters.map((f) => ({
            member: f.member,
            operator: f.operator,
            values: f.values ?? [],
          })),
        }
      : {}),
    ...(td
      ? {
          timeDimensions: [
            {
              dimension: td.dimension,
              granularity: td.granularity,
              ...(td.dateRange != null ? { dateRange: td.dateRange } : {}),
            },
          ],
          order: { [td.dimension]: 'asc' },
        }
      : {}),
    renewQuery: true,
  } as CubeQuery;
}

/**
 * The value is the measure's total, or with a time dimension that of the latest period the query
 * returns; `changeBy` compares it with the period just before (one granularity earlier: a period
 * with no row has no value, and then nothing is compared).
 */
export function evaluate(query: Query, condition: Condition, rows: Record<string, unknown>[]): Reading {
  const td = query.timeDimension ?? null;
  const measureOf = (row: Record<string, unknown> | undefined) => numberOf(row?.[query.measure]);
  if (!td) return judge(condition, measureOf(rows[0]), null);
  const timeKey = `${td.dimension}.${td.granularity}`;
  const byTime = new Map<number, Record<string, unknown>>();
  for (const row of rows) {
    const at = instantOf(row[timeKey]);
    if (at !== null) byTime.set(at, row);
  }
  if (byTime.size === 0) return judge(condition, null, null);
  const latest = Math.max(...byTime.keys());
  const previous = byTime.get(stepBack(latest, td.granularity));
  return judge(condition, measureOf(byTime.get(latest)), measureOf(previous));
}

function judge(condition: Condition, value: number | null, previousValue: number | null): Reading {
  let conditionMet = false;
  if (value !== null) {
    if (condition.type === 'above') conditionMet = value > (condition.threshold as number);
    else if (condition.type === 'below') conditionMet = value < (condition.threshold as number);
    else if (previousValue !== null) {
      conditionMet =
        previousValue === 0
          ? value !== 0
          : (Math.abs(value - previousValue) / Math.abs(previousValue)) * 100 > (condition.percent as number);
    }
  }
  return { value, previousValue, conditionMet };
}

function numberOf(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** A period's start as the data API writes it (`2024-03-01T00:00:00.000`, UTC), in ms. */
function instantOf(v: unknown): number | null {
  if (typeof v !== 'string' && !(v instanceof Date)) return null;
  const text = v instanceof Date ? v.toISOString() : v;
  const ms = Date.parse(/Z|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(' ', 'T')}Z`);
  return Number.isNaN(ms) ? null : ms;
}

/** The start of the period before the one starting at `at`. */
export function stepBack(at: number, granularity: string): number {
  const d = new Date(at);
  switch (granularity) {
    case 'second':
      return at - 1000;
    case 'minute':
      return at - 60_000;
    case 'hour':
      return at - 3_600_000;
    case 'day':
      return at - 86_400_000;
    case 'week':
      return at - 7 * 86_400_000;
    case 'month':
      return d.setUTCMonth(d.getUTCMonth() - 1);
    case 'quarter':
      return d.setUTCMonth(d.getUTCMonth() - 3);
    default:
      return d.setUTCFullYear(d.getUTCFullYear() - 1);
  }
}
