import type { DialectName } from '@tessera/semantic';
import type { DataSourceSettings } from '../db/schema.ts';

/** The SQL dialect of each data-source type: a new type must name its dialect here. */
const dialects: Record<DataSourceSettings['type'], DialectName> = { duckdb: 'duckdb', postgres: 'postgres' };

/**
 * The dialect a deployment's queries compile to, read from its data-source settings: compiling
 * (and `/v1/sql`, `/v1/dry-run`, which run nothing) never opens a connection to find it out.
 */
export function dialectOf(deployment: { data_source: unknown }): DialectName {
  return dialects[(deployment.data_source as DataSourceSettings).type];
}
