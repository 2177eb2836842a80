import { Type } from 'typebox';
import { describeNetworkFailure, errorParts, type FailureWords, unknownFailure } from '../connection-test.ts';
import type { Driver } from '../driver.ts';
import type { PostgresSettings } from '../postgres-driver.ts';
import { type ClearSettings, defaultMaxConnections, serverFields, type WarehouseKind } from './kind.ts';

const server = serverFields('postgres', 'PostgreSQL', 5432);

const oauthIntegrationId = Type.Optional(
  Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), Type.Null()], {
    description:
      "An OAuth integration of the account (`/api/v1/oauth-integrations`). Each account user's queries then " +
      'connect with their own access token of it as the password, on connections of their own; a user who ' +
      'has not connected that integration is told to (403 `oauth_connection_required`), and embed users and ' +
      'data-API tokens, which are no account user, are refused (403 `oauth_user_required`). Omitted or null: ' +
      'every query uses `user` and `password`.',
  }),
);

/** The server fields, and `oauthIntegrationId` (issue 22 item 6), which only PostgreSQL takes. */
const fields = {
  ...server,
  input: Type.Object(
    { ...server.input.properties, oauthIntegrationId },
    {
      additionalProperties: false,
      title: 'PostgreSQL data source',
      description:
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown literally
        "`host`, `database`, `user` and `password` may use the deployment's env variables as `${NAME}`, resolved when the data source connects",
    },
  ),
  view: Type.Object(
    { ...server.view.properties, oauthIntegrationId: Type.Optional(Type.Integer()) },
    { title: 'PostgreSQL data source (as returned)' },
  ),
};

/** `deploymentId` names the pool (`application_name`) and tags its statements (issue 24 item 3). */
function connection(settings: ClearSettings, deploymentId: number | null = null): PostgresSettings {
  return {
    deploymentId,
    host: (settings.host as string | undefined) ?? '127.0.0.1',
    port: settings.port as number | undefined,
    database: (settings.database as string | undefined) ?? 'postgres',
    user: settings.user as string | undefined,
    password: settings.password as string | undefined,
    ssl: settings.ssl as boolean | undefined,
  };
}

function openDriver(settings: PostgresSettings): Promise<Driver> {
  // node-postgres loads with the first PostgreSQL warehouse, not at start (issue 20, item 6).
  return import('../postgres-driver.ts').then(({ PostgresDriver }) => new PostgresDriver(settings));
}

/** PostgreSQL (also RDS, Cloud SQL, Supabase, Neon) through a `pg` pool per deployment. */
export const postgresKind: WarehouseKind = {
  type: 'postgres',
  label: 'PostgreSQL',
  dialect: 'postgres',
  ...fields,
  // Named `tessera deployment <id>` in pg_stat_activity; bounded by `maxConnections`, more wait.
  open: async (settings, context) =>
    openDriver({
      ...connection(settings, context.deploymentId),
      max: (settings.maxConnections as number | undefined) ?? defaultMaxConnections,
    }),
  // Named `tessera-user-<id>` in pg_stat_activity, so that a DBA sees whose pool it is.
  openForViewer: async (settings, context, viewer) =>
    openDriver({
      ...connection(settings, context.deploymentId),
      password: viewer.password,
      max: viewer.poolSize,
      idleTimeoutMs: viewer.idleMs,
      applicationName: `tessera-user-${viewer.userId}`,
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
    const at = `${settings.host}:${settings.port ?? 5432}`;
    if (code === '28P01' || code === '28000')
      return {
        problem: 'login_refused',
        message: `PostgreSQL refused the login${settings.user ? ` of user ${settings.user}` : ''}: check the user name and password, and that this user may connect to database ${settings.database}.`,
        field: 'password',
      };
    if (code === '3D000')
      return {
        problem: 'database_missing',
        message: `There is no database ${settings.database} at ${at}: check the database name.`,
        field: 'database',
      };
    return (
      describeNetworkFailure(error, 'PostgreSQL', settings, 5432, timeoutMs) ?? unknownFailure(error, at)
    );
  },
  // `pg_catalog` keeps a foreign key's column order (the information schema loses it for composite keys)
  catalogue: {
    columns: `
      SELECT n.nspname::text AS schema, c.relname::text AS table, a.attname::text AS column,
             format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f')
        AND n.nspname NOT IN ('pg_catalog', 'information_schema')
        AND n.nspname NOT LIKE 'pg\\_%'
        AND NOT c.relispartition
      ORDER BY 1, 2, a.attnum`,
    keys: `
      SELECT n.nspname::text AS schema, c.relname::text AS table, k.contype::text AS kind,
             ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(num, i)
                   JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.num ORDER BY u.i) AS columns,
             fn.nspname::text AS ref_schema, fc.relname::text AS ref_table,
             ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(num, i)
                   JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.num ORDER BY u.i) AS ref_columns
      FROM pg_constraint k
      JOIN pg_class c ON c.oid = k.conrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_class fc ON fc.oid = k.confrelid
      LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
      WHERE k.contype IN ('p', 'f')
        AND n.nspname NOT IN ('pg_catalog', 'information_schema')
        AND n.nspname NOT LIKE 'pg\\_%'
      ORDER BY 1, 2, k.conname`,
  },
};
