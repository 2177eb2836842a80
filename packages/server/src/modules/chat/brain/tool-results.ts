import type { MetaCube, MetaMember } from '@tessera/semantic';
import type {
  ServiceMetaMember,
  ServiceMetaResult,
  ServiceSqlApiInput,
  ServiceSqlApiResult,
} from './types.ts';

/** Rows a `serviceSqlApi` result carries; `totalRows` tells how many there were (spec 8). */
export const TOOL_ROW_LIMIT = 100;

/**
 * `serviceMeta`'s result from `getMeta` under the session's security context (spec 4.6): every
 * visible cube and view, its measures, dimensions and segments flattened into `members`.
 */
export function serviceMetaResult(
  meta: { cubes: readonly MetaCube[] },
  searchQuery: string,
): ServiceMetaResult {
  return {
    searchQuery,
    cubes: meta.cubes.map((cube) => ({
      name: cube.name,
      type: cube.type,
      title: cube.title,
      ...(cube.description ? { description: cube.description } : {}),
      members: [
        ...cube.measures.map((m) => member(m, { aggType: String(m.aggType) })),
        ...cube.dimensions.map((m) => member(m, {})),
        ...cube.segments.map((m) => member(m, { type: 'segment' })),
      ],
    })),
  };
}

function member(m: MetaMember, extra: Partial<ServiceMetaMember>): ServiceMetaMember {
  return {
    name: m.name,
    title: String(m.title ?? m.name),
    ...(typeof m.description === 'string' ? { description: m.description } : {}),
    type: String(m.type ?? 'string'),
    ...(typeof m.format === 'string' ? { format: m.format } : {}),
    ...extra,
    ...(m.meta && typeof m.meta === 'object' ? { meta: m.meta as Record<string, unknown> } : {}),
  };
}

/** `serviceSqlApi`'s result from a SQL-API answer: the first 100 rows, the total, the input echoed. */
export function sqlApiToolResult(
  input: ServiceSqlApiInput,
  answer: { schema: { name: string; column_type: string }[]; rows: (string | null)[][] },
  uuid: string,
): ServiceSqlApiResult {
  return {
    sqlQuery: input.sqlQuery,
    queryTitle: input.queryTitle,
    description: input.description,
    userRequest: input.userRequest,
    schema: answer.schema,
    data: answer.rows.slice(0, TOOL_ROW_LIMIT),
    totalRows: answer.rows.length,
    uuid,
    ...(input.vegaSpec !== undefined ? { vegaSpec: input.vegaSpec } : {}),
  };
}
