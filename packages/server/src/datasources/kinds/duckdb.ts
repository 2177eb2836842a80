import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Type } from 'typebox';
import type { FailureWords } from '../connection-test.ts';
import { type Driver, WarehouseUnavailableError } from '../driver.ts';
import { DuckDbDriver } from '../duckdb-driver.ts';
import { duckDbFile, duckDbPathProblem, SAMPLE_PATH } from '../duckdb-path.ts';
import { ensureSampleDatabase } from '../sample/generate.ts';
import type { OpenContext, WarehouseKind } from './kind.ts';

export function sampleDatabaseFile(dataDir: string): string {
  return path.join(dataDir, 'sample.duckdb');
}

/**
 * One DuckDB instance per database file, shared by the deployments on it (DuckDB allows one
 * writer instance per file), kept in the registry's `shared` map.
 */
function openFile(value: string, context: OpenContext): Promise<Driver> {
  const sample = value === SAMPLE_PATH;
  const file = sample ? sampleDatabaseFile(context.dataDir) : duckDbFile(context.dataDir, value);
  // A path stored before paths were checked (duckdb-path.ts) is refused here too.
  if (file === null)
    return Promise.reject(new WarehouseUnavailableError('DuckDB path outside the data directory'));
  let driver = context.shared.get(file);
  if (!driver) {
    driver = (async () => {
      if (sample) {
        await ensureSampleDatabase(file, context.sampleScale);
        return DuckDbDriver.open(file, true);
      }
      // DuckDB would create a missing file and answer "no such table": say what is wrong instead.
      const found = await stat(file).catch((error) => {
        throw new WarehouseUnavailableError(error);
      });
      if (!found.isFile()) throw new WarehouseUnavailableError(`${file} is not a file`);
      return DuckDbDriver.open(file).catch((error) => {
        throw new WarehouseUnavailableError(error);
      });
    })();
    driver.catch(() => context.shared.delete(file));
    context.shared.set(file, driver);
  }
  return driver;
}

/** DuckDB files in the server's data directory, and the generated sample data. */
export const duckdbKind: WarehouseKind = {
  type: 'duckdb',
  label: 'DuckDB',
  dialect: 'duckdb',
  input: Type.Object(
    {
      type: Type.Literal('duckdb', { description: 'DuckDB' }),
      path: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 1024,
          description: "DuckDB file, or ':sample:' for the generated sample data",
        }),
      ),
    },
    { additionalProperties: false, title: 'DuckDB data source' },
  ),
  view: Type.Object(
    { type: Type.Literal('duckdb'), path: Type.Optional(Type.String()), hasPassword: Type.Boolean() },
    { title: 'DuckDB data source (as returned)' },
  ),
  secretFields: [],
  referencingFields: [],
  sharesDrivers: true,
  problems(input) {
    const problem = typeof input.path === 'string' ? duckDbPathProblem(input.path) : null;
    return problem ? [{ field: 'path', message: problem }] : [];
  },
  normalize: (input) => ({ ...input, path: input.path ?? SAMPLE_PATH }),
  open: (settings, context) => openFile((settings.path as string | undefined) ?? SAMPLE_PATH, context),
  async test(settings, context) {
    await (await duckdbKind.open(settings, context)).query('SELECT 1', []);
  },
  describeFailure: (_error, settings): FailureWords => ({
    problem: 'file_missing',
    message: `The DuckDB file ${settings.path} cannot be opened: check that it exists in the server's data directory and is a DuckDB database.`,
    field: 'path',
  }),
  // `duckdb_constraints()` keeps a foreign key's column order
  catalogue: {
    columns: `
      SELECT table_schema AS schema, table_name AS "table", column_name AS "column",
             data_type AS type, is_nullable = 'YES' AS nullable
      FROM information_schema.columns
      WHERE table_catalog = current_database()
        AND table_schema NOT IN ('information_schema', 'pg_catalog')
      ORDER BY table_schema, table_name, ordinal_position`,
    keys: `
      SELECT schema_name AS schema, table_name AS "table",
             CASE constraint_type WHEN 'PRIMARY KEY' THEN 'p' ELSE 'f' END AS kind,
             constraint_column_names AS columns,
             CASE WHEN constraint_type = 'FOREIGN KEY' THEN schema_name END AS ref_schema,
             referenced_table AS ref_table, referenced_column_names AS ref_columns
      FROM duckdb_constraints()
      WHERE database_name = current_database()
        AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')
      ORDER BY schema_name, table_name, constraint_index`,
  },
};
