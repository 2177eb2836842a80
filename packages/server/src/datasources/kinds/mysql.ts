import { describeNetworkFailure, errorParts, type FailureWords, unknownFailure } from '../connection-test.ts';
import type { Driver } from '../driver.ts';
import type { MysqlSettings } from '../mysql-driver.ts';
import {
  type ClearSettings,
  defaultMaxConnections,
  type OpenContext,
  serverFields,
  type WarehouseKind,
} from './kind.ts';

const fields = serverFields('mysql', 'MySQL or MariaDB', 3306);

function connection(settings: ClearSettings, context: OpenContext): MysqlSettings {
  return {
    host: (settings.host as string | undefined) ?? '127.0.0.1',
    port: settings.port as number | undefined,
    database: settings.database as string,
    user: settings.user as string | undefined,
    password: settings.password as string | undefined,
    ssl: settings.ssl as boolean | undefined,
    deploymentId: context.deploymentId,
  };
}

function openDriver(settings: MysqlSettings): Promise<Driver> {
  // mysql2 loads with the first MySQL warehouse, not at start (issue 20, item 6)
  return import('../mysql-driver.ts').then(({ MysqlDriver }) => new MysqlDriver(settings));
}

const SYSTEM_SCHEMAS = "('information_schema', 'mysql', 'performance_schema', 'sys')";
/**
 * The prefix of the rollup tables Tessera builds in the deployment's own database
 * (modules/data/pre-aggregations/targets.ts says why there); the catalogue leaves them out.
 */
export const MYSQL_ROLLUP_PREFIX = 'tessera_pa_';
const NOT_ROLLUP = (column: string) => `${column} NOT LIKE '${MYSQL_ROLLUP_PREFIX.replace(/_/g, '\\_')}%'`;

/**
 * MySQL 8 and MariaDB 10.3+ (also Amazon RDS and Aurora MySQL, Cloud SQL for MySQL, PlanetScale)
 * through a bounded `mysql2` pool per deployment.
 */
export const mysqlKind: WarehouseKind = {
  type: 'mysql',
  label: 'MySQL',
  dialect: 'mysql',
  ...fields,
  // bounded by `maxConnections`: more queries wait for a connection
  open: async (settings, context) =>
    openDriver({
      ...connection(settings, context),
      max: (settings.maxConnections as number | undefined) ?? defaultMaxConnections,
    }),
  async test(settings, context, timeoutMs) {
    // a connection of its own, closed after: the deployment's pool is left alone
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
    const { code } = errorParts(error);
    const at = `${settings.host}:${settings.port ?? 3306}`;
    const user = settings.user ? ` user ${settings.user}` : ' the user';
    if (code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR')
      return {
        problem: 'login_refused',
        message: `MySQL refused the login of${user}: check the user name and password, and that this user may connect from the Tessera server's address.`,
        field: 'password',
      };
    if (code === 'ER_HOST_NOT_PRIVILEGED' || code === 'ER_HOST_IS_BLOCKED')
      return {
        problem: 'login_refused',
        message: `MySQL at ${at} does not accept connections from the Tessera server's address: allow it for${user} (CREATE USER ... @'<address>'), or unblock it (FLUSH HOSTS).`,
        field: 'host',
      };
    if (code === 'ER_BAD_DB_ERROR')
      return {
        problem: 'database_missing',
        message: `There is no database ${settings.database} at ${at}: check the database name.`,
        field: 'database',
      };
    if (code === 'ER_DBACCESS_DENIED_ERROR' || code === 'ER_TABLEACCESS_DENIED_ERROR')
      return {
        problem: 'permission_missing',
        message: `The login worked, but${user} may not read database ${settings.database}: grant it SELECT on ${settings.database}.* (GRANT SELECT ON ...).`,
        field: 'user',
      };
    return describeNetworkFailure(error, 'MySQL', settings, 3306, timeoutMs) ?? unknownFailure(error, at);
  },
  // A MySQL schema is a database: every one the login may see, but the server's own
  catalogue: {
    columns: `
      SELECT TABLE_SCHEMA AS "schema", TABLE_NAME AS "table", COLUMN_NAME AS "column",
             COLUMN_TYPE AS "type", IS_NULLABLE = 'YES' AS nullable
      FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA NOT IN ${SYSTEM_SCHEMAS} AND ${NOT_ROLLUP('TABLE_NAME')}
      ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION`,
    // key columns in key order, as JSON text (JSON_ARRAYAGG takes no ORDER BY on MySQL 8)
    keys: `
      SELECT k.TABLE_SCHEMA AS "schema", k.TABLE_NAME AS "table",
             CASE WHEN k.CONSTRAINT_NAME = 'PRIMARY' THEN 'p' ELSE 'f' END AS kind,
             CONCAT('[', GROUP_CONCAT(JSON_QUOTE(k.COLUMN_NAME) ORDER BY k.ORDINAL_POSITION SEPARATOR ','), ']') AS columns,
             MAX(k.REFERENCED_TABLE_SCHEMA) AS ref_schema, MAX(k.REFERENCED_TABLE_NAME) AS ref_table,
             CASE WHEN MAX(k.REFERENCED_TABLE_NAME) IS NULL THEN NULL ELSE CONCAT('[',
               GROUP_CONCAT(JSON_QUOTE(k.REFERENCED_COLUMN_NAME) ORDER BY k.ORDINAL_POSITION SEPARATOR ','), ']') END AS ref_columns
      FROM information_schema.KEY_COLUMN_USAGE k
      WHERE k.TABLE_SCHEMA NOT IN ${SYSTEM_SCHEMAS} AND ${NOT_ROLLUP('k.TABLE_NAME')}
        AND (k.CONSTRAINT_NAME = 'PRIMARY' OR k.REFERENCED_TABLE_NAME IS NOT NULL)
      GROUP BY k.TABLE_SCHEMA, k.TABLE_NAME, k.CONSTRAINT_NAME
      ORDER BY 1, 2, k.CONSTRAINT_NAME`,
  },
};
