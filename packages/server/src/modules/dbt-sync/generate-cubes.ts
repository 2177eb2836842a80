import { stringify } from 'yaml';
import { dimensionType, memberName } from '../data-model/generate-model.ts';
import type { DbtMeasure, DbtMetric, DbtModel, DbtProject, DbtTest } from './manifest.ts';

/**
 * Cube-compatible YAML from a dbt project (issue 25 item 3), one file per dbt model, in the shape
 * the data model's own generator writes (data-model/generate-model.ts): `sql_table` from the
 * model's database, schema and alias; each documented column a dimension typed from its
 * `data_type`; the primary key from the columns that carry both a `unique` and a `not_null` test;
 * a `many_to_one` join for each `relationships` test, on the model that carries it; a `count`
 * measure, the measures of the dbt semantic models defined on the model, and metrics over them;
 * descriptions carried over. Whatever cannot be carried over is logged with the reason.
 */
export interface GeneratedFile {
  path: string;
  content: string;
}

export interface GenerationNote {
  level: 'info' | 'error';
  message: string;
}

export interface Generation {
  files: GeneratedFile[];
  cubes: string[];
  notes: GenerationNote[];
}

/** Where generated files go: a later sync of the same project overwrites exactly these. */
export const GENERATED_DIR = 'model/dbt';

/** A name as SQL text: bare when it is a plain lower-case identifier, else double-quoted. */
export function quote(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

function unique(base: string, taken: Set<string>): string {
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

/** dbt's `agg` (MetricFlow's AggregationType) as a Cube measure type; null: not carried over. */
function measureOf(m: DbtMeasure): { type: string; sql: string | null } | { skip: string } {
  const expr = m.expr ?? m.name;
  const sql = /^[A-Za-z_][A-Za-z0-9_]*$/.test(expr) ? quote(expr) : expr;
  switch (m.agg) {
    case 'sum':
    case 'min':
    case 'max':
    case 'count_distinct':
    case 'median':
      return { type: m.agg, sql };
    case 'average':
      return { type: 'avg', sql };
    case 'count':
      // `count` of a constant counts rows; of a column, its non-null values (Cube's count with sql).
      return { type: 'count', sql: /^\s*(1|\*)\s*$/.test(expr) ? null : sql };
    case 'sum_boolean':
      return { type: 'sum', sql: `CASE WHEN ${sql} THEN 1 ELSE 0 END` };
    case 'percentile':
      return m.percentile === 0.5
        ? { type: 'median', sql }
        : {
            skip: `agg percentile (${m.percentile ?? 'no percentile'}) has no Cube measure type but the median`,
          };
    default:
      return { skip: `agg "${m.agg}" is not a dbt aggregation Tessera knows` };
  }
}

interface CubeDraft {
  model: DbtModel;
  name: string;
  members: Set<string>;
  dimensions: Record<string, unknown>[];
  measures: Record<string, unknown>[];
  joins: Record<string, unknown>[];
  /** dbt measure name -> the Cube measure it became. */
  measureNames: Map<string, string>;
}

export function generateCubes(project: DbtProject): Generation {
  const notes: GenerationNote[] = [];
  const info = (message: string) => notes.push({ level: 'info', message });
  const cubeNames = new Set<string>();
  const drafts = new Map<string, CubeDraft>();
  for (const model of project.models)
    drafts.set(model.uniqueId, {
      model,
      name: unique(memberName(model.name), cubeNames),
      members: new Set(['count']),
      dimensions: [],
      measures: [{ name: 'count', type: 'count' }],
      joins: [],
      measureNames: new Map(),
    });
  const testsOf = (id: string, kind: DbtTest['kind']) =>
    project.tests.filter((t) => t.model === id && t.kind === kind);

  for (const draft of drafts.values()) {
    const { model } = draft;
    const notNull = new Set(testsOf(model.uniqueId, 'not_null').map((t) => t.column));
    const keys = new Set(
      testsOf(model.uniqueId, 'unique')
        .map((t) => t.column)
        .filter((c) => notNull.has(c)),
    );
    const columns = [...model.columns];
    const documented = new Set(columns.map((c) => c.name));
    for (const key of keys)
      if (!documented.has(key)) {
        info(`${model.name}: key column ${key} is tested but not documented; its dimension is typed string`);
        columns.push({ name: key, description: null, dataType: null });
      }
    for (const column of columns) {
      const type = column.dataType === null ? 'string' : dimensionType(column.dataType);
      if (type === null) {
        info(`Skipped ${model.name}.${column.name}: data_type ${column.dataType} fits no dimension type`);
        continue;
      }
      if (column.dataType === null && !keys.has(column.name))
        info(`${model.name}.${column.name} has no data_type in the manifest; typed string`);
      draft.dimensions.push({
        name: unique(memberName(column.name), draft.members),
        sql: quote(column.name),
        type,
        ...(keys.has(column.name) ? { primary_key: true } : {}),
        ...(column.description ? { description: column.description } : {}),
      });
    }
    if (keys.size === 0)
      info(`${model.name}: no primary key (no column has both a unique and a not_null test)`);
  }

  for (const test of project.tests.filter((t) => t.kind === 'relationships')) {
    const child = drafts.get(test.model);
    if (!child) continue;
    const parent = test.to ? drafts.get(test.to) : undefined;
    if (!parent || !test.field) {
      info(
        `Skipped join of ${test.uniqueId}: it refers to no model of this manifest (a source, or unresolved)`,
      );
      continue;
    }
    if (child.joins.some((j) => j.name === parent.name)) {
      info(
        `Skipped join ${child.name}.${test.column} -> ${parent.name}: ${child.name} already joins ${parent.name}`,
      );
      continue;
    }
    child.joins.push({
      name: parent.name,
      relationship: 'many_to_one',
      sql: `{CUBE}.${quote(test.column)} = {${parent.name}}.${quote(test.field)}`,
    });
  }

  // dbt measure name -> its cube and Cube measure, for metrics.
  const measures = new Map<string, { cube: CubeDraft; name: string }>();
  for (const semantic of project.semanticModels) {
    const draft = semantic.model ? drafts.get(semantic.model) : undefined;
    if (!draft) {
      info(`Skipped semantic model ${semantic.name}: it is defined on no model of this manifest`);
      continue;
    }
    for (const m of semantic.measures) {
      const shape = measureOf(m);
      if ('skip' in shape) {
        info(`Skipped measure ${semantic.name}.${m.name}: ${shape.skip}`);
        continue;
      }
      const name = unique(memberName(m.name), draft.members);
      draft.measures.push({
        name,
        type: shape.type,
        ...(shape.sql !== null ? { sql: shape.sql } : {}),
        ...(m.label ? { title: m.label } : {}),
        ...(m.description ? { description: m.description } : {}),
      });
      measures.set(m.name, { cube: draft, name });
    }
  }
  addMetrics(project.metrics, measures, info);

  const files = [...drafts.values()].map((draft) => {
    const { model } = draft;
    const table = [model.database, model.schema, model.alias].filter((p): p is string => p !== null);
    const cube = {
      name: draft.name,
      sql_table: table.map(quote).join('.'),
      ...(model.description ? { description: model.description } : {}),
      ...(draft.joins.length > 0 ? { joins: draft.joins } : {}),
      measures: draft.measures,
      dimensions: draft.dimensions,
    };
    info(
      `Generated cube ${draft.name} from ${model.uniqueId}: ${draft.dimensions.length} dimensions, ` +
        `${draft.measures.length} measures, ${draft.joins.length} joins`,
    );
    const header = `# Generated by dbt sync from ${model.uniqueId}; the next sync overwrites this file.\n`;
    return {
      path: `${GENERATED_DIR}/${draft.name}.yml`,
      content: header + stringify({ cubes: [cube] }, { lineWidth: 0 }),
    };
  });
  return { files, cubes: [...drafts.values()].map((d) => d.name), notes };
}

/**
 * Simple metrics become a measure over their measure (`type: number`), ratio metrics a quotient of
 * two such measures of one cube; a metric named like its measure only lends it its label and
 * description. Filtered, derived, cumulative and conversion metrics are logged, not generated:
 * their filters and windows are MetricFlow templates with no Cube equivalent here.
 */
function addMetrics(
  metrics: readonly DbtMetric[],
  measures: Map<string, { cube: CubeDraft; name: string }>,
  info: (message: string) => void,
) {
  const simple = new Map<string, { cube: CubeDraft; name: string }>();
  const describe = (m: DbtMetric) => ({
    ...(m.label ? { title: m.label } : {}),
    ...(m.description ? { description: m.description } : {}),
  });
  const ordered = [...metrics].sort((a, b) => Number(a.type === 'ratio') - Number(b.type === 'ratio'));
  for (const metric of ordered) {
    if (metric.filtered) {
      info(`Skipped metric ${metric.name}: its filter is a MetricFlow template Tessera does not translate`);
      continue;
    }
    if (metric.type === 'simple') {
      const target = metric.measure ? measures.get(metric.measure) : undefined;
      if (!target) {
        info(`Skipped metric ${metric.name}: its measure ${metric.measure ?? '(none)'} was not generated`);
        continue;
      }
      const name = memberName(metric.name);
      if (name === target.name) {
        const existing = target.cube.measures.find((m) => m.name === name);
        if (existing) Object.assign(existing, { ...describe(metric), ...existing });
        simple.set(metric.name, target);
        continue;
      }
      const own = unique(name, target.cube.members);
      target.cube.measures.push({ name: own, type: 'number', sql: `{${target.name}}`, ...describe(metric) });
      simple.set(metric.name, { cube: target.cube, name: own });
    } else if (metric.type === 'ratio') {
      const num = metric.numerator ? simple.get(metric.numerator) : undefined;
      const den = metric.denominator ? simple.get(metric.denominator) : undefined;
      if (!num || !den || num.cube !== den.cube) {
        info(
          `Skipped metric ${metric.name}: its numerator and denominator are not simple metrics of one model`,
        );
        continue;
      }
      num.cube.measures.push({
        name: unique(memberName(metric.name), num.cube.members),
        type: 'number',
        sql: `1.0 * {${num.name}} / NULLIF({${den.name}}, 0)`,
        ...describe(metric),
      });
    } else {
      info(`Skipped metric ${metric.name}: ${metric.type} metrics are not generated`);
    }
  }
}
