import { type TObject, Type } from 'typebox';
import { athenaKind } from './athena.ts';
import { bigqueryKind } from './bigquery.ts';
import { clickhouseKind } from './clickhouse.ts';
import { databricksKind } from './databricks.ts';
import { duckdbKind } from './duckdb.ts';
import type { WarehouseKind } from './kind.ts';
import { mysqlKind } from './mysql.ts';
import { postgresKind } from './postgres.ts';
import { prestoKind } from './presto.ts';
import { redshiftKind } from './redshift.ts';
import { snowflakeKind } from './snowflake.ts';
import { trinoKind } from './trino.ts';

/**
 * Every warehouse kind Tessera connects to, one file each (issue 24 item 0). The API's
 * `DataSourceInput` union, the registry and the deployments service read this table only.
 */
export const warehouseKinds = [
  duckdbKind,
  postgresKind,
  mysqlKind,
  trinoKind,
  redshiftKind,
  prestoKind,
  clickhouseKind,
  databricksKind,
  snowflakeKind,
  athenaKind,
  bigqueryKind,
] as const satisfies readonly WarehouseKind[];

export const dataSourceTypes = warehouseKinds.map((k) => k.type);

const byType = new Map<string, WarehouseKind>(warehouseKinds.map((k) => [k.type, k]));

/** The kind of a stored or requested data source; a type no kind has is a stored row from the future. */
export function kindOf(settings: { type: string }): WarehouseKind {
  const kind = byType.get(settings.type);
  if (!kind) throw new Error(`Unknown data-source type ${settings.type}`);
  return kind;
}

/** A data-source body as the API takes it (validated against one member of the union below). */
export type DataSourceBody = { type: string } & Record<string, unknown>;

/** The API's data-source body: one member per kind, each with its own fields (OpenAPI `anyOf`). */
export const dataSourceInputSchema = Type.Union(
  warehouseKinds.map((k): TObject => k.input),
  { description: 'Warehouse settings: `type` names the engine, the other fields are its own' },
);

export const dataSourceViewSchema = Type.Union(warehouseKinds.map((k): TObject => k.view));
