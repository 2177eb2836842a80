import type { CubeQuery } from '@tessera/semantic';
import { DomainError } from '../../errors/domain-errors.ts';
import type { DataCaller } from './caller.ts';
import type { CompiledLoad, CompiledSqlApi } from './compile.ts';
import type { DataLog } from './ports.ts';
import type { LoadResult, SqlApiResult } from './run.ts';

/**
 * The log lines of the data API's queries (issue 25 item 1). What a line may hold is decided
 * here: the members a Cube query names (filter members without their values), the query type,
 * rows, duration and, for a failure, its error code. SQL-API text is never logged (its literals
 * are the caller's values), nor any engine message (an engine quotes the values it refused):
 * only model errors, which are the model author's text, are logged with their words.
 */
export function logQuery(
  log: DataLog | undefined,
  caller: DataCaller,
  compiled: CompiledLoad | CompiledSqlApi,
  startedAt: number,
  outcome: { result: LoadResult | SqlApiResult } | { error: unknown },
): void {
  if (!log) return;
  const durationMs = Date.now() - startedAt;
  const what = compiled.kind === 'load' ? `${compiled.queryType} query` : 'SQL API query';
  const members = compiled.kind === 'load' ? membersOf(compiled.parts.map((p) => p.query)) : {};
  const base = { deploymentId: caller.deployment.id, branch: caller.branch, kind: 'query' as const };
  // Who asked, for the usage model's data_queries (migration 0036): an account user's id, never a token.
  const asker = caller.accountUserId === undefined ? {} : { userId: caller.accountUserId };
  if ('error' in outcome) {
    const code = errorCode(outcome.error);
    log.write({
      ...base,
      level: 'error',
      message: `${capitalised(what)} failed after ${durationMs} ms: ${code}`,
      details: { queryKind: compiled.kind, durationMs, errorCode: code, ...asker, ...members },
    });
    return;
  }
  const rows =
    outcome.result.kind === 'load'
      ? outcome.result.parts.reduce((n, p) => n + p.rows.length, 0)
      : outcome.result.rows.length;
  const rollups =
    outcome.result.kind === 'load'
      ? outcome.result.parts.flatMap((p) =>
          p.rollup ? [`${p.rollup.preAggregation.cube}.${p.rollup.preAggregation.name}`] : [],
        )
      : [];
  log.write({
    ...base,
    level: 'info',
    message: `${capitalised(what)} answered ${rows} row${rows === 1 ? '' : 's'} in ${durationMs} ms`,
    details: {
      queryKind: compiled.kind,
      ...(compiled.kind === 'load' ? { queryType: compiled.queryType } : {}),
      durationMs,
      rows,
      ...asker,
      ...(rollups.length > 0 ? { rollups } : {}),
      ...members,
    },
  });
}

/** A query refused before it ran (an unknown member, a model error): its code, and a model error's words. */
export function logRefusal(
  log: DataLog | undefined,
  caller: DataCaller,
  what: 'load' | 'sql',
  error: unknown,
): void {
  if (!log) return;
  const code = errorCode(error);
  const modelError = error instanceof DomainError && error.code === 'invalid_data_model';
  log.write({
    deploymentId: caller.deployment.id,
    branch: caller.branch,
    kind: 'query',
    level: 'error',
    message: `${what === 'load' ? 'Query' : 'SQL API query'} refused: ${modelError ? (error as Error).message : code}`,
    details: { queryKind: what, errorCode: code },
  });
}

function errorCode(error: unknown): string {
  return error instanceof DomainError ? error.code : 'internal_error';
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The member names of Cube queries, without a filter's values. */
function membersOf(queries: readonly CubeQuery[]) {
  const measures = new Set<string>();
  const dimensions = new Set<string>();
  const filters = new Set<string>();
  const segments = new Set<string>();
  for (const q of queries) {
    for (const m of q.measures ?? []) measures.add(String(m));
    for (const d of q.dimensions ?? []) dimensions.add(String(d));
    for (const t of q.timeDimensions ?? [])
      dimensions.add(t.granularity ? `${t.dimension}.${t.granularity}` : String(t.dimension));
    for (const s of q.segments ?? []) segments.add(String(s));
    collectFilterMembers(q.filters ?? [], filters);
  }
  return {
    measures: [...measures],
    dimensions: [...dimensions],
    ...(filters.size > 0 ? { filterMembers: [...filters] } : {}),
    ...(segments.size > 0 ? { segments: [...segments] } : {}),
  };
}

function collectFilterMembers(filters: readonly unknown[], into: Set<string>): void {
  for (const f of filters) {
    if (typeof f !== 'object' || f === null) continue;
    const filter = f as { member?: unknown; dimension?: unknown; and?: unknown; or?: unknown };
    const member = filter.member ?? filter.dimension;
    if (typeof member === 'string') into.add(member);
    if (Array.isArray(filter.and)) collectFilterMembers(filter.and, into);
    if (Array.isArray(filter.or)) collectFilterMembers(filter.or, into);
  }
}
