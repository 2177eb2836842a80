import {
  type CompiledQuery,
  type CompileQueryOptions,
  type CubeQuery,
  compileFromRollup,
  type Model,
  type PreAggregation,
  type ResolvedQuery,
  type RollupHook,
  type RollupSource,
  rollupCanAnswer,
  rollupCovers,
} from '@tessera/semantic';
import type { PreAggregationTableRow } from '../../../db/schema.ts';
import type { DataCaller } from '../caller.ts';
import { type CompiledLoad, type CompiledPart, queryTypes } from '../compile.ts';
import { parseUtc } from './partitions.ts';
import { type PreAggregationRefresher, ROLLUP_BRANCH } from './refresher.ts';
import type { RollupUse } from './use.ts';

export type { RollupUse };

/**
 * Serves queries from built rollups (Cube's pre-aggregation matching): each part of a load is
 * recompiled against the first rollup holding its members (candidates), in model order, that can
 * answer it (semantic's rollupCanAnswer: members, joins, additive measures, granularity, filters
 * and every row-level policy the raw plan applies, on rollup dimensions) and whose built range
 * covers its date range. Anything else keeps
 * its raw SQL. Pointers are read from the store at most once a second per deployment (a swap
 * here forgets them at once; a replaced table stays readable for a while, refresher.ts).
 */
export class PreAggregationMatcher {
  private readonly pointers = new Map<number, { at: number; rows: Promise<PreAggregationTableRow[]> }>();

  constructor(
    private readonly refresher: PreAggregationRefresher,
    private readonly ttlMs = 1_000,
  ) {
    refresher.onSwap((id) => this.pointers.delete(id));
  }

  async rewrite(caller: DataCaller, model: Model, compiled: CompiledLoad): Promise<CompiledLoad> {
    if (caller.branch !== ROLLUP_BRANCH || compiled.queryType === queryTypes.compare) return compiled;
    if (![...model.cubes.values()].some((c) => c.preAggregations.size > 0)) return compiled;
    const target = await this.refresher.target(caller.deployment);
    if (target.dialect !== compiled.dialect) return compiled;
    const rows = await this.tables(caller.deployment.id, () => target.pointers.tables(caller.deployment.id));
    if (rows.length === 0) return compiled;
    const options = { dialect: target.dialect, securityContext: caller.securityContext };
    const parts = compiled.parts.map((part): CompiledPart => {
      const hit = match(model, rows, caller, part.query, part.compiled, options);
      if (!hit) return part;
      const rollup = { ...hit.rollup, driver: target.driver, external: target.external };
      return { ...part, compiled: hit.compiled, rollup };
    });
    return { ...compiled, parts };
  }

  /**
   * For `/v1/cubesql`: serves each semantic subquery of the SQL API's one statement from a rollup
   * that can answer it, when the rollups live in the deployment's own engine (the statement runs
   * there whole; rollups in an external engine are read by /v1/load only). Null: none to read.
   */
  async sqlApiHook(caller: DataCaller, model: Model): Promise<RollupHook | null> {
    if (caller.branch !== ROLLUP_BRANCH) return null;
    if (![...model.cubes.values()].some((c) => c.preAggregations.size > 0)) return null;
    const target = await this.refresher.target(caller.deployment);
    if (target.external) return null;
    const rows = await this.tables(caller.deployment.id, () => target.pointers.tables(caller.deployment.id));
    if (rows.length === 0) return null;
    return (query, raw, options) => match(model, rows, caller, query, raw, options)?.compiled ?? null;
  }

  private tables(deploymentId: number, read: () => Promise<PreAggregationTableRow[]>) {
    const hit = this.pointers.get(deploymentId);
    if (hit && hit.at > Date.now() - this.ttlMs) return hit.rows;
    const rows = read();
    rows.catch(() => this.pointers.delete(deploymentId));
    this.pointers.set(deploymentId, { at: Date.now(), rows });
    return rows;
  }
}

/** The query compiled against the first built rollup that answers it, and the tables it reads. */
function match(
  model: Model,
  rows: PreAggregationTableRow[],
  caller: DataCaller,
  query: CubeQuery,
  raw: CompiledQuery,
  options: CompileQueryOptions,
): { compiled: CompiledQuery; rollup: Pick<RollupUse, 'preAggregation' | 'used'> } | null {
  const q = raw.resolved;
  for (const p of candidates(model, q)) {
    if (!rollupCanAnswer(model, p, q, caller.securityContext)) continue;
    const built = rows.filter((r) => r.cube === p.cube && r.name === p.name);
    const source = sourceOf(p, built, q);
    if (source === null || !rollupCovers(source.source, q)) continue;
    const compiled = compileFromRollup(model, query, options, raw, source.source);
    const used = Object.fromEntries(
      source.rows.map((r) => [
        r.table_name,
        {
          targetTableName: r.table_name,
          refreshKeyValues: [[{ refresh_key: r.refresh_key_value }]],
          lastUpdatedAt: r.built_at.getTime(),
        },
      ]),
    );
    return { compiled, rollup: { preAggregation: p, used } };
  }
  return null;
}

/**
 * Rollups holding the query's first member, in model order: those of its cube first, then those
 * of other cubes that hold it through a join (Cube lets a rollup name members of joined cubes).
 */
function candidates(model: Model, q: ResolvedQuery): PreAggregation[] {
  const first = q.measures[0] ?? q.dimensions[0] ?? q.timeDimensions[0]?.member;
  if (!first) return [];
  const path = `${first.member.cube}.${first.member.name}`;
  const all = [...model.cubes.values()].flatMap((c) => [...c.preAggregations.values()]);
  const holds = (p: PreAggregation) =>
    p.measures.includes(path) || p.dimensions.includes(path) || p.timeDimension === path;
  return [
    ...all.filter((p) => p.cube === first.member.cube),
    ...all.filter((p) => p.cube !== first.member.cube && holds(p)),
  ];
}

/**
 * The tables to read: the one table, or the partitions the query's date range touches (all of
 * them without a range), as a UNION ALL; with the range they were built for, which must be one
 * unbroken span (a partition that failed to build leaves a gap: no match).
 */
function sourceOf(
  p: PreAggregation,
  built: PreAggregationTableRow[],
  q: ResolvedQuery,
): { source: RollupSource; rows: PreAggregationTableRow[] } | null {
  if (built.length === 0) return null;
  const ranged = built
    .map((r) => ({ r, from: parseUtc(r.range_start), to: parseUtc(r.range_end) }))
    .sort((a, b) => (a.from ?? 0) - (b.from ?? 0));
  let range: { from: number; to: number } | null = null;
  if (ranged[0].from !== null) {
    for (const [i, x] of ranged.entries()) {
      if (x.from === null || x.to === null) return null;
      if (i > 0 && x.from !== ranged[i - 1].to! + 1) return null;
    }
    range = { from: ranged[0].from!, to: ranged[ranged.length - 1].to! };
  }
  const dateRange = q.timeDimensions.find(
    (t) => `${t.member.member.cube}.${t.member.member.name}` === p.timeDimension,
  )?.dateRange;
  const rows = ranged
    .filter((x) => !dateRange || x.from === null || (x.from <= dateRange.to && x.to! >= dateRange.from))
    .map((x) => x.r);
  if (rows.length === 0) return null;
  const from =
    rows.length === 1
      ? rows[0].table_name
      : `(${rows.map((r) => `SELECT * FROM ${r.table_name}`).join(' UNION ALL ')})`;
  return { source: { preAggregation: p, from, range }, rows };
}
