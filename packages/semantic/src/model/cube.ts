import { buildHierarchies } from './hierarchies.ts';
import { buildDimension, buildMeasure, buildSegment, type MemberContext, template } from './members.ts';
import { buildPolicies } from './policy.ts';
import { buildPreAggregations } from './pre-aggregations.ts';
import { isRecord, memberList, type Raw, snakeCase, str } from './raw.ts';
import { locate } from './reporter.ts';
import type { Cube, Dimension, Join, Measure, Relationship, Segment } from './types.ts';

/** Cube's relationship aliases: belongs_to/has_many/has_one and their camelCase forms. */
const RELATIONSHIP_ALIASES: Record<string, Relationship> = {
  many_to_one: 'many_to_one',
  belongs_to: 'many_to_one',
  one_to_many: 'one_to_many',
  has_many: 'one_to_many',
  one_to_one: 'one_to_one',
  has_one: 'one_to_one',
};

export function buildCube(raw: Raw, ctx: MemberContext): Cube {
  const { cube: name, reporter } = ctx;
  const loc = locate(raw, ctx.loc);
  const ownNames = new Set<string>();
  const unique = <T extends { name: string; loc: { file: string; line: number | null } }>(items: T[]) => {
    const map = new Map<string, T>();
    for (const item of items) {
      if (ownNames.has(item.name))
        reporter.error(item.loc, name, item.name, `Duplicate member name ${name}.${item.name}`);
      ownNames.add(item.name);
      map.set(item.name, item);
    }
    return map;
  };
  const measures = unique<Measure>(
    memberList(raw.measures)
      .filter(named(ctx))
      .map((m) => buildMeasure(m, ctx)),
  );
  const dimensions = unique<Dimension>(
    memberList(raw.dimensions)
      .filter(named(ctx))
      .map((d) => buildDimension(d, ctx)),
  );
  const segments = unique<Segment>(
    memberList(raw.segments)
      .filter(named(ctx))
      .map((s) => buildSegment(s, ctx)),
  );

  const sqlTable = str(raw.sql_table);
  const sql = template(raw, 'sql', ctx, null);
  if (sqlTable === null && sql === null) reporter.error(loc, name, null, 'Cube needs sql_table or sql');
  if (sqlTable !== null && sql !== null) reporter.error(loc, name, null, 'Cube has both sql_table and sql');

  const isPublic = raw.public ?? raw.shown ?? true;
  const refreshKey = isRecord(raw.refresh_key)
    ? { every: str(raw.refresh_key.every) ?? undefined, sql: str(raw.refresh_key.sql) ?? undefined }
    : null;
  return Object.freeze({
    kind: 'cube',
    name,
    title: str(raw.title),
    description: str(raw.description),
    meta: isRecord(raw.meta) ? raw.meta : null,
    public: isPublic !== false,
    sqlTable: sqlTable?.replace(/\$?\{\s*CUBE\s*\}/g, name) ?? null,
    sql,
    dataSource: str(raw.data_source) ?? 'default',
    refreshKey,
    joins: buildJoins(raw, ctx),
    measures,
    dimensions,
    segments,
    primaryKeys: Object.freeze([...dimensions.values()].filter((d) => d.primaryKey)),
    hierarchies: buildHierarchies(raw, name, ownNames, loc, reporter),
    accessPolicy: buildPolicies(
      raw.access_policy,
      name,
      ownNames,
      locate(raw, loc, 'access_policy'),
      reporter,
    ),
    preAggregations: buildPreAggregations(raw, ctx, measures, dimensions),
    loc,
  });
}

function named(ctx: MemberContext) {
  return (m: Raw): boolean => {
    if (typeof m.name === 'string' && /^[A-Za-z_]\w*$/.test(m.name)) return true;
    ctx.reporter.error(
      locate(m, ctx.loc),
      ctx.cube,
      null,
      `Invalid or missing member name: ${String(m.name)}`,
    );
    return false;
  };
}

function buildJoins(raw: Raw, ctx: MemberContext): Map<string, Join> {
  const joins = new Map<string, Join>();
  for (const j of memberList(raw.joins)) {
    const loc = locate(j, ctx.loc);
    const target = str(j.name);
    if (target === null) {
      ctx.reporter.error(loc, ctx.cube, null, 'Join needs a name (the target cube)');
      continue;
    }
    const relationship = RELATIONSHIP_ALIASES[snakeCase(String(j.relationship ?? ''))];
    if (!relationship) {
      ctx.reporter.error(
        loc,
        ctx.cube,
        null,
        `Join to ${target}: unknown relationship '${String(j.relationship)}'`,
      );
    }
    if (!ctx.index.cubes.has(target)) {
      ctx.reporter.error(loc, ctx.cube, null, `Join to unknown cube ${target}`);
      continue;
    }
    if (joins.has(target)) ctx.reporter.error(loc, ctx.cube, null, `Duplicate join to ${target}`);
    const sql = template(j, 'sql', ctx, null);
    if (sql === null) ctx.reporter.error(loc, ctx.cube, null, `Join to ${target} needs sql`);
    joins.set(
      target,
      Object.freeze({ name: target, relationship: relationship ?? 'many_to_one', sql: sql ?? [], loc }),
    );
  }
  return joins;
}
