import { describeNetworkFailure, errorParts, type FailureWords, unknownFailure } from '../connection-test.ts';
import type { Driver } from '../driver.ts';
import type { PostgresSettings, SessionStatement } from '../postgres-driver.ts';
import { type ClearSettings, defaultMaxConnections, serverFields, type WarehouseKind } from './kind.ts';

const defaultPort = 5439;
const fields = serverFields('redshift', 'Amazon Redshift', defaultPort);

/**
 * What each new connection sets first (AWS's "Configuration reference"): the session's time zone
 * UTC, as the Redshift dialect expects of TIMESTAMPTZ columns and GETDATE(); and `query_group`, a
 * label STL_QUERY, SVL_QLOG and SYS_QUERY_HISTORY keep with each query (truncated to 30
 * characters, 15 in STV_INFLIGHT, hence the short form), which also lets an administrator route
 * Tessera's queries to a WLM queue of their own. An engine without query groups (42704, an
 * unknown setting: PostgreSQL standing in for Redshift in tests) runs without the label.
 */
function session(deploymentId: number | null): SessionStatement[] {
  const label = `tessera${deploymentId === null ? '' : `-${deploymentId}`}`;
  return [{ sql: "SET timezone TO 'UTC'" }, { sql: `SET query_group TO '${label}'`, optional: ['42704'] }];
}

function connection(settings: ClearSettings, deploymentId: number | null = null): PostgresSettings {
  return {
    deploymentId,
    host: settings.host as string,
    port: (settings.port as number | undefined) ?? defaultPort,
    database: settings.database as string,
    user: settings.user as string | undefined,
    password: settings.password as string | undefined,
    ssl: settings.ssl as boolean | undefined,
    flavour: { dialect: 'redshift', session: session(deploymentId) },
  };
}

function openDriver(settings: PostgresSettings): Promise<Driver> {
  // node-postgres loads with the first Redshift warehouse, not at start (issue 20, item 6)
  return import('../postgres-driver.ts').then(({ PostgresDriver }) => new PostgresDriver(settings));
}

/** Leading schemas of the engine itself, never the user's tables. */
const systemSchemas = `table_schema NOT IN ('information_schema', 'pg_catalog', 'pg_internal', 'pg_automv')
        AND LEFT(table_schema, 3) <> 'pg_'`;

/**
 * Amazon Redshift (provisioned or Serverless) over PostgreSQL's protocol with node-postgres, its
 * own dialect (@tessera/semantic dialect/redshift.ts), a bounded pool per deployment. Queries are
 * named three ways: `application_name` (`tessera deployment <id>`, SYS_CONNECTION_LOG), the
 * `query_group` label, and the comment ahead of each statement (STL_QUERYTEXT). A timed-out or
 * abandoned query is cancelled with PG_CANCEL_BACKEND(pid), which Redshift has as PostgreSQL does.
 */
export const redshiftKind: WarehouseKind = {
  type: 'redshift',
  label: 'Amazon Redshift',
  dialect: 'redshift',
  ...fields,
  open: async (settings, context) =>
    openDriver({
      ...connection(settings, context.deploymentId),
      max: (settings.maxConnections as number | undefined) ?? defaultMaxConnections,
    }),
  async test(settings, _context, timeoutMs) {
    // a connection of its own, closed after: the deployment's pool is left alone
    const driver = await openDriver({ ...connection(settings), max: 1, connectionTimeoutMs: timeoutMs });
    try {
      await driver.query('SELECT 1', []);
    } finally {
      await driver.close().catch(() => undefined);
    }
  },
  describeFailure(error, settings, timeoutMs): FailureWords {
    const { code } = errorParts(error);
    const at = `${settings.host}:${settings.port ?? defaultPort}`;
    if (code === '28P01' || code === '28000')
      return {
        problem: 'login_refused',
        message: `Redshift refused the login${settings.user ? ` of user ${settings.user}` : ''}: check the user name and password, and that this user may connect to database ${settings.database}.`,
        field: 'password',
      };
    if (code === '3D000')
      return {
        problem: 'database_missing',
        message: `There is no database ${settings.database} at ${at}: check the database name (the cluster's default is dev).`,
        field: 'database',
      };
    if (code === '42501')
      return {
        problem: 'permission_missing',
        message: `The login worked, but user ${settings.user} may not use database ${settings.database}: ask the cluster's administrator for access.`,
        field: 'user',
      };
    const network = describeNetworkFailure(error, 'Redshift', settings, defaultPort, timeoutMs);
    if (network?.problem === 'timeout')
      // a cluster's security group drops packets rather than refusing them
      return {
        ...network,
        message: `${network.message} A Redshift cluster answers only sources its VPC security group lets in, and a cluster that is not publicly accessible only from inside its VPC.`,
      };
    return network ?? unknownFailure(error, at);
  },
  /**
   * SVV_COLUMNS lists late-binding views and external (Spectrum) tables beside ordinary ones, which
   * information_schema.columns omits; where SVV_COLUMNS is missing (an engine that is no Redshift)
   * or may not be read, the information schema answers (introspect.ts tries `fallback`). Redshift
   * records primary and foreign keys without enforcing them: the information schema gives them
   * a column a row (no arrays on the leader node), which introspect.ts joins by constraint name.
   */
  catalogue: {
    columns: `
      SELECT table_schema AS "schema", table_name AS "table", column_name AS "column",
             data_type AS "type", is_nullable = 'YES' AS "nullable"
      FROM svv_columns
      WHERE ${systemSchemas}
      ORDER BY table_schema, table_name, ordinal_position`,
    keys: `
      SELECT k.table_schema AS "schema", k.table_name AS "table", k.constraint_name AS "name",
             CASE c.constraint_type WHEN 'PRIMARY KEY' THEN 'p' ELSE 'f' END AS "kind",
             k.column_name AS "columns", r.table_schema AS "ref_schema", r.table_name AS "ref_table",
             r.column_name AS "ref_columns"
      FROM information_schema.table_constraints c
      JOIN information_schema.key_column_usage k
        ON k.constraint_schema = c.constraint_schema AND k.constraint_name = c.constraint_name
       AND k.table_name = c.table_name
      LEFT JOIN information_schema.constraint_column_usage r
        ON c.constraint_type = 'FOREIGN KEY'
       AND r.constraint_schema = c.constraint_schema AND r.constraint_name = c.constraint_name
      WHERE c.constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY') AND ${systemSchemas.replace(/table_schema/g, 'c.table_schema')}
      ORDER BY 1, 2, 3, k.ordinal_position`,
    fallback: {
      columns: `
      SELECT table_schema AS "schema", table_name AS "table", column_name AS "column",
             data_type AS "type", is_nullable = 'YES' AS "nullable"
      FROM information_schema.columns
      WHERE ${systemSchemas}
      ORDER BY table_schema, table_name, ordinal_position`,
    },
  },
};
