import { Type } from 'typebox';
import { describeNetworkFailure, errorParts, type FailureWords, unknownFailure } from '../connection-test.ts';
import { type Driver, StatementRejectedError } from '../driver.ts';
import type { TrinoSettings } from '../trino-driver.ts';
import { literal } from '../trino-literals.ts';
import { type ClearSettings, defaultMaxConnections, type OpenContext, type WarehouseKind } from './kind.ts';

const name = Type.String({ minLength: 1, maxLength: 255 });

function openDriver(settings: TrinoSettings): Promise<Driver> {
  // loaded with the first Trino or Presto warehouse, not at start (issue 20, item 6)
  return import('../trino-driver.ts').then(({ TrinoDriver }) => new TrinoDriver(settings));
}

const defaultPort = (settings: Record<string, unknown>) => (settings.ssl ? 443 : 8080);

/** What sets Trino and Presto apart here: the kind's name, its words, its headers and dialect. */
export interface ProtocolFlavour {
  type: 'trino' | 'presto';
  label: string;
  description: string;
}

/**
 * A kind over Trino's client REST protocol (trino-driver.ts), a bounded number of statements at
 * once per deployment: Trino and Starburst (kinds/trino.ts), Presto with X-Presto-* headers
 * (kinds/presto.ts).
 */
export function protocolKind(f: ProtocolFlavour): WarehouseKind {
  const header = f.type === 'presto' ? 'X-Presto' : 'X-Trino';
  const input = Type.Object(
    {
      type: Type.Literal(f.type, { description: f.description }),
      // required, but said by `problems` ("is required for type trino"), as for the other server engines
      host: Type.Optional(name),
      port: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 65535, description: 'Default 443 with `ssl`, 8080 without' }),
      ),
      ssl: Type.Optional(Type.Boolean({ description: `HTTPS; ${f.label} takes a password over HTTPS only` })),
      user: Type.Optional({ ...name, description: `Sent as ${header}-User; required` }),
      password: Type.Optional(
        Type.String({ maxLength: 1024, description: 'Write-only; encrypted at rest; needs `ssl`' }),
      ),
      catalog: Type.Optional({ ...name, description: 'The catalog unqualified table names are read from' }),
      schema: Type.Optional({ ...name, description: 'The schema unqualified table names are read from' }),
      caCertificate: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 16384,
          description:
            "A PEM certificate authority to trust besides the system's, for a cluster on a private CA",
        }),
      ),
      maxConnections: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 100,
          description:
            'Statements the deployment runs on the cluster at once (default 10); further queries wait',
        }),
      ),
    },
    {
      additionalProperties: false,
      title: `${f.label} data source`,
      description:
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown literally
        "`host`, `user`, `password`, `catalog` and `schema` may use the deployment's env variables as `${NAME}`, resolved when the data source connects",
    },
  );

  const view = Type.Object(
    {
      type: Type.Literal(f.type),
      host: Type.Optional(Type.String()),
      port: Type.Optional(Type.Integer()),
      ssl: Type.Optional(Type.Boolean()),
      user: Type.Optional(Type.String()),
      catalog: Type.Optional(Type.String()),
      schema: Type.Optional(Type.String()),
      caCertificate: Type.Optional(Type.String()),
      maxConnections: Type.Optional(Type.Integer()),
      hasPassword: Type.Boolean(),
    },
    { title: `${f.label} data source (as returned)` },
  );

  const connection = (settings: ClearSettings, context: OpenContext): TrinoSettings => ({
    flavour: f.type,
    host: settings.host as string,
    port: settings.port as number | undefined,
    ssl: settings.ssl as boolean | undefined,
    user: settings.user as string,
    password: settings.password as string | undefined,
    catalog: settings.catalog as string,
    schema: settings.schema as string | undefined,
    caCertificate: settings.caCertificate as string | undefined,
    deploymentId: context.deploymentId,
  });
  return {
    type: f.type,
    label: f.label,
    dialect: f.type,
    input,
    view,
    secretFields: ['password'],
    referencingFields: ['host', 'user', 'password', 'catalog', 'schema'],
    problems(settings) {
      const problems: Array<{ field: string; message: string }> = ['host', 'user', 'catalog']
        .filter((k) => !settings[k])
        .map((field) => ({ field, message: `is required for type ${f.type}` }));
      // Basic credentials over plain HTTP are readable on the wire; Trino itself refuses them there
      if (typeof settings.password === 'string' && settings.password !== '' && settings.ssl !== true)
        problems.push({ field: 'password', message: 'is sent over HTTPS only: turn HTTPS on (ssl: true)' });
      return problems;
    },
    open: async (settings, context) =>
      openDriver({
        ...connection(settings, context),
        max: (settings.maxConnections as number | undefined) ?? defaultMaxConnections,
      }),
    /**
     * `SELECT 1` proves the coordinator answers and takes the login; the schema's row in the
     * catalog's information_schema proves both exist (a missing catalog fails that statement).
     */
    async test(settings, context, timeoutMs) {
      const driver = await openDriver({
        ...connection(settings, context),
        max: 1,
        connectionTimeoutMs: timeoutMs,
      });
      try {
        await driver.query('SELECT 1', []);
        const schema = settings.schema as string | undefined;
        if (schema) {
          const rows = await driver.query(
            `SELECT schema_name FROM information_schema.schemata WHERE schema_name = ${literal(schema)}`,
            [],
          );
          if (rows.length === 0)
            throw Object.assign(new Error('schema missing'), { code: 'TRINO_SCHEMA_MISSING' });
        }
      } finally {
        await driver.close().catch(() => undefined);
      }
    },
    describeFailure(error, settings, timeoutMs): FailureWords {
      // an error object of Trino's arrives as the statement refused; its name says what is missing
      const cause = error instanceof StatementRejectedError ? error.cause : error;
      const { code } = errorParts(cause);
      const e = cause as { errorName?: unknown; status?: unknown };
      const at = `${settings.host}:${settings.port ?? defaultPort(settings)}`;
      if (code === 'TRINO_LOGIN_REFUSED')
        return {
          problem: 'login_refused',
          message: `${f.label} at ${at} refused the login of user ${settings.user}: check the user name and password.`,
          field: 'password',
        };
      if (e?.errorName === 'CATALOG_NOT_FOUND')
        return {
          problem: 'database_missing',
          message: `${f.label} at ${at} has no catalog ${settings.catalog}: check the catalog name (SHOW CATALOGS lists them).`,
          field: 'catalog',
        };
      if (code === 'TRINO_SCHEMA_MISSING' || e?.errorName === 'SCHEMA_NOT_FOUND')
        return {
          problem: 'database_missing',
          message: `Catalog ${settings.catalog} has no schema ${settings.schema}: check the schema name (SHOW SCHEMAS FROM ${settings.catalog} lists them).`,
          field: 'schema',
        };
      if (e?.errorName === 'PERMISSION_DENIED')
        return {
          problem: 'permission_missing',
          message: `The login worked, but user ${settings.user} may not read catalog ${settings.catalog}: ask the cluster's administrator for access.`,
          field: 'user',
        };
      if (typeof e?.status === 'number' && e.status === 404)
        return {
          problem: 'host_unreachable',
          message: `${at} answers HTTP but is no ${f.label} coordinator (no /v1/statement): check the host and port.`,
          field: 'port',
        };
      return (
        describeNetworkFailure(cause, f.label, settings, defaultPort(settings), timeoutMs) ??
        unknownFailure(cause, at)
      );
    },
    // Trino and Presto keep no keys (their connectors enforce none): columns only, no keys
    catalogue: {
      columns: `
      SELECT table_schema AS "schema", table_name AS "table", column_name AS "column",
             data_type AS "type", is_nullable = 'YES' AS "nullable"
      FROM information_schema.columns
      WHERE table_schema NOT IN ('information_schema', 'pg_catalog')
      ORDER BY table_schema, table_name, ordinal_position`,
      keys: `
      SELECT CAST(NULL AS VARCHAR) AS "schema", CAST(NULL AS VARCHAR) AS "table", 'p' AS "kind",
             CAST(NULL AS VARCHAR) AS "columns", CAST(NULL AS VARCHAR) AS "ref_schema",
             CAST(NULL AS VARCHAR) AS "ref_table", CAST(NULL AS VARCHAR) AS "ref_columns"
      WHERE 1 = 0`,
    },
  };
}

/** Trino and Starburst. */
export const trinoKind = protocolKind({
  type: 'trino',
  label: 'Trino',
  description: 'Trino (also Starburst)',
});
