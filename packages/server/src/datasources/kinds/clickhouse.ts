import { Type } from 'typebox';
import type { ClickhouseSettings } from '../clickhouse-driver.ts';
import { describeNetworkFailure, type FailureWords, unknownFailure } from '../connection-test.ts';
import { type Driver, StatementRejectedError, WarehouseUnavailableError } from '../driver.ts';
import {
  type ClearSettings,
  defaultMaxConnections,
  type OpenContext,
  serverFields,
  type WarehouseKind,
} from './kind.ts';

const server = serverFields('clickhouse', 'ClickHouse', 8123);

/** The server fields; `port` defaults by `ssl` (ClickHouse's HTTP 8123, HTTPS 8443), `database` to `default`. */
const fields = {
  ...server,
  input: Type.Object(
    {
      ...server.input.properties,
      port: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 65535, description: 'Default 8443 with `ssl`, 8123 without' }),
      ),
      database: Type.Optional(
        Type.String({ minLength: 1, maxLength: 255, description: 'Default `default`' }),
      ),
      user: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Default `default`' })),
    },
    {
      additionalProperties: false,
      title: 'ClickHouse data source',
      description:
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown literally
        "Over ClickHouse's HTTP interface. `host`, `database`, `user` and `password` may use the deployment's env variables as `${NAME}`, resolved when the data source connects",
    },
  ),
};

function connection(settings: ClearSettings, context: OpenContext): ClickhouseSettings {
  return {
    host: settings.host as string,
    port: settings.port as number | undefined,
    ssl: settings.ssl as boolean | undefined,
    database: (settings.database as string | undefined) || 'default',
    user: settings.user as string | undefined,
    password: settings.password as string | undefined,
    deploymentId: context.deploymentId,
  };
}

function openDriver(settings: ClickhouseSettings): Promise<Driver> {
  // @clickhouse/client loads with the first ClickHouse warehouse, not at start (issue 20, item 6)
  return import('../clickhouse-driver.ts').then(({ ClickhouseDriver }) => new ClickhouseDriver(settings));
}

/** The ClickHouse exception behind a driver error, whichever way the driver sorted it. */
function exceptionOf(error: unknown): { type: string; code: string } {
  const cause =
    error instanceof StatementRejectedError || error instanceof WarehouseUnavailableError
      ? error.cause
      : error;
  const e = cause as { type?: unknown; code?: unknown };
  return { type: typeof e?.type === 'string' ? e.type : '', code: typeof e?.code === 'string' ? e.code : '' };
}

const SYSTEM_DATABASES = "('system', 'information_schema', 'INFORMATION_SCHEMA')";

/**
 * ClickHouse (self-hosted or ClickHouse Cloud) over its HTTP interface, a bounded number of
 * connections per deployment (clickhouse-driver.ts).
 */
export const clickhouseKind: WarehouseKind = {
  type: 'clickhouse',
  label: 'ClickHouse',
  dialect: 'clickhouse',
  ...fields,
  problems: (settings) =>
    settings.host ? [] : [{ field: 'host', message: 'is required for type clickhouse' }],
  open: async (settings, context) =>
    openDriver({
      ...connection(settings, context),
      max: (settings.maxConnections as number | undefined) ?? defaultMaxConnections,
    }),
  /**
   * `SELECT 1` in the data source's database: the server answers, takes the login, and has the
   * database (ClickHouse checks the `database` parameter before running anything).
   */
  async test(settings, context, timeoutMs) {
    const driver = await openDriver({
      ...connection(settings, context),
      max: 1,
      connectionTimeoutMs: timeoutMs,
    });
    try {
      await driver.query('SELECT 1', []);
    } finally {
      await driver.close().catch(() => undefined);
    }
  },
  describeFailure(error, settings, timeoutMs): FailureWords {
    const { type } = exceptionOf(error);
    const cause =
      error instanceof StatementRejectedError || error instanceof WarehouseUnavailableError
        ? error.cause
        : error;
    const port = (settings.port as number | undefined) ?? (settings.ssl === true ? 8443 : 8123);
    const at = `${settings.host}:${port}`;
    const user = settings.user ? `user ${settings.user}` : 'user default';
    if (['AUTHENTICATION_FAILED', 'REQUIRED_PASSWORD', 'UNKNOWN_USER', 'WRONG_PASSWORD'].includes(type))
      return {
        problem: 'login_refused',
        message: `ClickHouse at ${at} refused the login of ${user}: check the user name and password.`,
        field: 'password',
      };
    if (type === 'IP_ADDRESS_NOT_ALLOWED')
      return {
        problem: 'login_refused',
        message: `ClickHouse at ${at} does not accept ${user} from the Tessera server's address: allow it in the user's HOST list (ALTER USER ... HOST ...).`,
        field: 'host',
      };
    if (type === 'UNKNOWN_DATABASE')
      return {
        problem: 'database_missing',
        message: `There is no database ${settings.database ?? 'default'} at ${at}: check the database name (SHOW DATABASES lists them).`,
        field: 'database',
      };
    if (type === 'ACCESS_DENIED' || type === 'NOT_ENOUGH_PRIVILEGES')
      return {
        problem: 'permission_missing',
        message: `The login worked, but ${user} may not read database ${settings.database ?? 'default'}: grant it SELECT (GRANT SELECT ON <database>.* TO ...).`,
        field: 'user',
      };
    return (
      describeNetworkFailure(cause, 'ClickHouse', { ...settings, port }, port, timeoutMs) ??
      unknownFailure(cause, at)
    );
  },
  // Every database the login may see, but the server's own. ClickHouse's primary key is a sort
  // key, not a uniqueness constraint, and it keeps no foreign keys: columns only.
  catalogue: {
    columns: `
      SELECT database AS "schema", table AS "table", name AS "column", type AS "type",
             startsWith(type, 'Nullable(') AS "nullable"
      FROM system.columns
      WHERE database NOT IN ${SYSTEM_DATABASES}
      ORDER BY database, table, position`,
    keys: `
      SELECT CAST(NULL AS Nullable(String)) AS "schema", CAST(NULL AS Nullable(String)) AS "table", 'p' AS "kind",
             CAST(NULL AS Nullable(String)) AS "columns", CAST(NULL AS Nullable(String)) AS "ref_schema",
             CAST(NULL AS Nullable(String)) AS "ref_table", CAST(NULL AS Nullable(String)) AS "ref_columns"
      WHERE 0`,
  },
};
