import { type FieldProblem, ValidationError } from '../../errors/domain-errors.ts';

/**
 * A dbt `manifest.json` (schema v12, dbt 1.8 and later: https://schemas.getdbt.com/dbt/manifest/v12.json)
 * read into what the cube generator needs: models with their columns, the generic tests that say
 * which columns are keys (`unique`, `not_null`) and how models relate (`relationships`), semantic
 * models with their measures, and metrics. Only the structure every v12 manifest has is required;
 * a malformed request is a 400 naming the field (`body/manifest/...`), and anything the generator
 * cannot use is reported in the job's log instead.
 */
export interface DbtColumn {
  name: string;
  description: string | null;
  dataType: string | null;
}

export interface DbtModel {
  uniqueId: string;
  name: string;
  database: string | null;
  schema: string;
  /** The relation's name in the warehouse: `alias`, else the model's name. */
  alias: string;
  description: string | null;
  columns: DbtColumn[];
}

export interface DbtTest {
  uniqueId: string;
  kind: 'unique' | 'not_null' | 'relationships';
  /** The model the test is attached to. */
  model: string;
  column: string;
  /** relationships: the model referred to (null when it is a source or unresolved) and its column. */
  to: string | null;
  field: string | null;
}

export interface DbtMeasure {
  name: string;
  agg: string;
  expr: string | null;
  description: string | null;
  label: string | null;
  percentile: number | null;
}

export interface DbtSemanticModel {
  name: string;
  /** The model it is defined on (its `depends_on`), null when none is named. */
  model: string | null;
  description: string | null;
  primaryEntity: { name: string; expr: string | null } | null;
  measures: DbtMeasure[];
}

export interface DbtMetric {
  name: string;
  type: string;
  label: string | null;
  description: string | null;
  measure: string | null;
  numerator: string | null;
  denominator: string | null;
  filtered: boolean;
}

export interface DbtProject {
  dbtVersion: string | null;
  generatedAt: string | null;
  models: DbtModel[];
  tests: DbtTest[];
  semanticModels: DbtSemanticModel[];
  metrics: DbtMetric[];
  counts: { models: number; sources: number; macros: number };
}

export const MANIFEST_VERSION = 'https://schemas.getdbt.com/dbt/manifest/v12.json';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
const at = (...parts: string[]) => ['body/manifest', ...parts].join('/');

/** Reads a manifest; every structural problem is listed at once in one 400 (STYLE.md 7). */
export function readManifest(manifest: Obj): DbtProject {
  const problems: FieldProblem[] = [];
  const metadata = manifest.metadata;
  if (!isObj(metadata)) problems.push({ field: at('metadata'), message: 'is required: an object' });
  else {
    const version = metadata.dbt_schema_version;
    if (version !== MANIFEST_VERSION)
      problems.push({
        field: at('metadata', 'dbt_schema_version'),
        message:
          typeof version === 'string'
            ? `is ${version}; Tessera reads ${MANIFEST_VERSION} (dbt 1.8 and later)`
            : `is required: ${MANIFEST_VERSION}`,
      });
  }
  const nodes = manifest.nodes;
  if (!isObj(nodes)) problems.push({ field: at('nodes'), message: 'is required: an object of dbt nodes' });
  for (const key of ['sources', 'macros', 'semantic_models', 'metrics'])
    if (manifest[key] !== undefined && manifest[key] !== null && !isObj(manifest[key]))
      problems.push({ field: at(key), message: 'must be an object keyed by unique id' });
  if (problems.length > 0) throw new ValidationError('The dbt manifest cannot be read', problems);

  const models: DbtModel[] = [];
  const tests: DbtTest[] = [];
  // In unique-id order: the stored manifest is jsonb, whose key order is not the upload's.
  for (const [id, node] of byId(nodes as Obj)) {
    if (!isObj(node)) {
      problems.push({ field: at('nodes', id), message: 'must be an object' });
      continue;
    }
    if (node.resource_type === 'model') {
      const model = readModel(id, node, problems);
      if (model) models.push(model);
    } else if (node.resource_type === 'test') {
      const test = readTest(id, node);
      if (test) tests.push(test);
    }
  }
  if (problems.length === 0 && models.length === 0)
    problems.push({ field: at('nodes'), message: 'holds no model (resource_type "model")' });
  if (problems.length > 0) throw new ValidationError('The dbt manifest cannot be read', problems);

  const meta = metadata as Obj;
  return {
    dbtVersion: text(meta.dbt_version),
    generatedAt: text(meta.generated_at),
    models,
    tests,
    semanticModels: inIdOrder(manifest.semantic_models).filter(isObj).map(readSemanticModel),
    metrics: inIdOrder(manifest.metrics)
      .filter(isObj)
      .map(readMetric)
      .filter((m): m is DbtMetric => m !== null),
    counts: {
      models: models.length,
      sources: Object.keys((manifest.sources as Obj | undefined) ?? {}).length,
      macros: Object.keys((manifest.macros as Obj | undefined) ?? {}).length,
    },
  };
}

const byId = (o: Obj) => Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
const inIdOrder = (o: unknown) => (isObj(o) ? byId(o).map(([, v]) => v) : []);

function readModel(id: string, node: Obj, problems: FieldProblem[]): DbtModel | null {
  const name = text(node.name);
  const schema = text(node.schema);
  if (!name) problems.push({ field: at('nodes', id, 'name'), message: 'is required for a model' });
  if (!schema) problems.push({ field: at('nodes', id, 'schema'), message: 'is required for a model' });
  if (node.columns !== undefined && !isObj(node.columns))
    problems.push({ field: at('nodes', id, 'columns'), message: 'must be an object keyed by column name' });
  if (!name || !schema || (node.columns !== undefined && !isObj(node.columns))) return null;
  const columns = Object.entries((node.columns as Obj | undefined) ?? {}).flatMap(([key, c]) =>
    isObj(c)
      ? [{ name: text(c.name) ?? key, description: text(c.description), dataType: text(c.data_type) }]
      : [],
  );
  return {
    uniqueId: id,
    name,
    database: text(node.database),
    schema,
    alias: text(node.alias) ?? name,
    description: text(node.description),
    columns,
  };
}

const testKinds = new Set(['unique', 'not_null', 'relationships']);

/** A generic test of one column (dbt's `test_metadata`); singular and other tests are not keys. */
function readTest(id: string, node: Obj): DbtTest | null {
  const meta = node.test_metadata;
  if (!isObj(meta) || !testKinds.has(String(meta.name))) return null;
  const kwargs = isObj(meta.kwargs) ? meta.kwargs : {};
  const column = text(node.column_name) ?? text(kwargs.column_name);
  const dependsOn =
    isObj(node.depends_on) && Array.isArray(node.depends_on.nodes) ? node.depends_on.nodes : [];
  const models = dependsOn.filter((n): n is string => typeof n === 'string' && n.startsWith('model.'));
  const model = text(node.attached_node) ?? models[0] ?? null;
  if (!column || !model) return null;
  const kind = meta.name as DbtTest['kind'];
  // A relationships test depends on its own model and the one its `to` names.
  const to = kind === 'relationships' ? (models.find((m) => m !== model) ?? null) : null;
  return { uniqueId: id, kind, model, column, to, field: text(kwargs.field) };
}

function readSemanticModel(node: Obj): DbtSemanticModel {
  const dependsOn =
    isObj(node.depends_on) && Array.isArray(node.depends_on.nodes) ? node.depends_on.nodes : [];
  const entities = Array.isArray(node.entities) ? node.entities.filter(isObj) : [];
  const primary = entities.find((e) => e.type === 'primary');
  return {
    name: text(node.name) ?? '(unnamed)',
    model: dependsOn.find((n): n is string => typeof n === 'string' && n.startsWith('model.')) ?? null,
    description: text(node.description),
    primaryEntity: primary ? { name: String(primary.name), expr: text(primary.expr) } : null,
    measures: (Array.isArray(node.measures) ? node.measures.filter(isObj) : []).map((m) => ({
      name: String(m.name),
      agg: String(m.agg ?? ''),
      expr: m.expr === undefined || m.expr === null ? null : String(m.expr),
      description: text(m.description),
      label: text(m.label),
      percentile:
        isObj(m.agg_params) && typeof m.agg_params.percentile === 'number' ? m.agg_params.percentile : null,
    })),
  };
}

function readMetric(node: Obj): DbtMetric | null {
  const name = text(node.name);
  if (!name) return null;
  const params = isObj(node.type_params) ? node.type_params : {};
  const measureName = (v: unknown) => (isObj(v) ? text(v.name) : text(v));
  const filterOf = (v: unknown) => isObj(v) && v.filter !== undefined && v.filter !== null;
  return {
    name,
    type: String(node.type ?? ''),
    label: text(node.label),
    description: text(node.description),
    measure: measureName(params.measure),
    numerator: measureName(params.numerator),
    denominator: measureName(params.denominator),
    filtered:
      (node.filter !== undefined && node.filter !== null) ||
      filterOf(params.measure) ||
      filterOf(params.numerator) ||
      filterOf(params.denominator),
  };
}
