import { Type } from 'typebox';
import { describeNetworkFailure, errorParts, type FailureWords, unknownFailure } from '../connection-test.ts';
import type { DatabricksSettings } from '../databricks-driver.ts';
import { type Driver, StatementRejectedError, WarehouseUnavailableError } from '../driver.ts';
import { type ClearSettings, defaultMaxConnections, type OpenContext, type WarehouseKind } from './kind.ts';

const name = Type.String({ minLength: 1, maxLength: 255 });
const hostPattern = /^[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?$/;
/** A SQL warehouse's HTTP path, as its Connection details tab shows it (`endpoints` in older workspaces). */
const httpPathPattern = /^\/sql\/1\.0\/(?:warehouses|endpoints)\/([0-9A-Za-z]+)\/?$/;
const warehouseIdPattern = /^[0-9A-Za-z]+$/;
const secret = (description: string) => Type.Optional(Type.String({ maxLength: 4096, description }));

const input = Type.Object(
  {
    type: Type.Literal('databricks', { description: 'Databricks SQL, over its Statement Execution API' }),
    // required, but said by `problems` ("is required for type databricks"), as for the other kinds
    host: Type.Optional({
      ...name,
      description:
        'The workspace host (`dbc-a1b2c3d4-e5f6.cloud.databricks.com`, `adb-1234.5.azuredatabricks.net`), optionally `:port`; always HTTPS',
    }),
    httpPath: Type.Optional({
      ...name,
      description:
        "The SQL warehouse's HTTP path from its Connection details (`/sql/1.0/warehouses/<id>`); or give warehouseId",
    }),
    warehouseId: Type.Optional({ ...name, description: 'The SQL warehouse id; or give httpPath' }),
    catalog: Type.Optional({ ...name, description: 'The catalog unqualified table names are read from' }),
    schema: Type.Optional({ ...name, description: 'The schema unqualified table names are read from' }),
    token: secret('A personal access token. Write-only; encrypted at rest'),
    clientId: Type.Optional({
      ...name,
      description: "OAuth machine-to-machine instead of a token: the service principal's client id",
    }),
    clientSecret: secret("The service principal's OAuth secret. Write-only; encrypted at rest"),
    caCertificate: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 16384,
        description:
          "A PEM certificate authority to trust besides the system's, for a private link on a private CA",
      }),
    ),
    maxConnections: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description:
          'Statements the deployment runs on Databricks at once (default 10); further queries wait',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'Databricks data source',
    description:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown literally
      "Every text field but `caCertificate` may use the deployment's env variables as `${NAME}`, resolved when the data source connects",
  },
);

const view = Type.Object(
  {
    type: Type.Literal('databricks'),
    host: Type.Optional(Type.String()),
    httpPath: Type.Optional(Type.String()),
    warehouseId: Type.Optional(Type.String()),
    catalog: Type.Optional(Type.String()),
    schema: Type.Optional(Type.String()),
    clientId: Type.Optional(Type.String()),
    caCertificate: Type.Optional(Type.String()),
    maxConnections: Type.Optional(Type.Integer()),
    hasPassword: Type.Boolean({ description: 'Always false: Databricks takes a token or an OAuth secret' }),
    hasToken: Type.Boolean(),
    hasClientSecret: Type.Boolean(),
  },
  { title: 'Databricks data source (as returned)' },
);

const isReference = (v: unknown) => typeof v === 'string' && v.includes('${');
const literal = (v: unknown): v is string => typeof v === 'string' && v !== '' && !isReference(v);

/** The warehouse named by `warehouseId`, else by the id at the end of `httpPath`. */
function warehouseOf(settings: Record<string, unknown>): string {
  if (settings.warehouseId) return String(settings.warehouseId);
  return httpPathPattern.exec(String(settings.httpPath ?? ''))?.[1] ?? '';
}

function connection(settings: ClearSettings, context: OpenContext): DatabricksSettings {
  const text = (field: string) => (settings[field] as string | undefined) || undefined;
  return {
    host: settings.host as string,
    warehouseId: warehouseOf(settings),
    catalog: text('catalog'),
    schema: text('schema'),
    token: text('token'),
    clientId: text('clientId'),
    clientSecret: text('clientSecret'),
    caCertificate: text('caCertificate'),
    deploymentId: context.deploymentId,
  };
}

function openDriver(settings: DatabricksSettings): Promise<Driver> {
  // loaded with the first Databricks warehouse, not at start (issue 20, item 6)
  return import('../databricks-driver.ts').then(({ DatabricksDriver }) => new DatabricksDriver(settings));
}

/**
 * The session the test statement sees: the catalog and schema (a statement fails when the named
 * ones are not there); the driver's first statement has checked that its time zone is UTC.
 */
const contextQuery = 'SELECT current_catalog() AS `catalog`, current_schema() AS `schema`';

/** Which of catalog or schema a statement's error class says is missing ("Error classes in Databricks"). */
function missingObject(message: string): 'catalog' | 'schema' | null {
  if (/\b(NO_SUCH_CATALOG_EXCEPTION|CATALOG_NOT_FOUND)\b/.test(message)) return 'catalog';
  if (/\bSCHEMA_NOT_FOUND\b/.test(message)) return 'schema';
  return null;
}

/**
 * Databricks SQL warehouses over the Statement Execution API 2.0 (databricks-driver.ts), a bounded
 * number of statements at once per deployment, authenticated by a personal access token or an
 * OAuth service principal (both sealed, never returned).
 */
export const databricksKind: WarehouseKind = {
  type: 'databricks',
  label: 'Databricks',
  dialect: 'databricks',
  input,
  view,
  secretFields: ['token', 'clientSecret'],
  referencingFields: [
    'host',
    'httpPath',
    'warehouseId',
    'catalog',
    'schema',
    'token',
    'clientId',
    'clientSecret',
  ],
  /** A host pasted as a URL (`https://…/`) is saved as the host it names. */
  normalize: (settings) =>
    typeof settings.host === 'string'
      ? { ...settings, host: settings.host.replace(/^https:\/\//i, '').replace(/\/+$/, '') }
      : settings,
  problems(settings) {
    const problems: Array<{ field: string; message: string }> = [];
    if (!settings.host) problems.push({ field: 'host', message: 'is required for type databricks' });
    const host =
      typeof settings.host === 'string' ? settings.host.replace(/^https:\/\//i, '').replace(/\/+$/, '') : '';
    if (literal(host) && !hostPattern.test(host))
      problems.push({
        field: 'host',
        message: 'must be a workspace host name, optionally with :port (HTTPS)',
      });
    if (!settings.httpPath && !settings.warehouseId)
      problems.push({
        field: 'httpPath',
        message: 'or warehouseId is required for type databricks: the SQL warehouse statements run on',
      });
    if (literal(settings.httpPath) && !httpPathPattern.test(settings.httpPath))
      problems.push({
        field: 'httpPath',
        message:
          "must be a SQL warehouse's HTTP path, /sql/1.0/warehouses/<id>, from the warehouse's Connection details tab (a cluster's path is not one)",
      });
    if (literal(settings.warehouseId) && !warehouseIdPattern.test(settings.warehouseId))
      problems.push({ field: 'warehouseId', message: 'must be a SQL warehouse id: letters and digits' });
    if (
      literal(settings.httpPath) &&
      literal(settings.warehouseId) &&
      httpPathPattern.exec(settings.httpPath)?.[1] !== settings.warehouseId
    )
      problems.push({
        field: 'warehouseId',
        message: 'names another warehouse than httpPath; give one of them',
      });
    if (settings.token && (settings.clientId || settings.clientSecret))
      problems.push({
        field: 'clientId',
        message: 'is for OAuth; give a token or a client id and secret, not both',
      });
    if (settings.clientSecret && !settings.clientId)
      problems.push({ field: 'clientId', message: 'is required with clientSecret' });
    return problems;
  },
  open: async (settings, context) =>
    openDriver({
      ...connection(settings, context),
      max: (settings.maxConnections as number | undefined) ?? defaultMaxConnections,
    }),
  /**
   * A statement proves the workspace answers, takes the token and runs the warehouse, in UTC (the
   * driver asks first); it fails where the catalog or schema is missing.
   */
  async test(settings, context, timeoutMs) {
    const driver = await openDriver({
      ...connection(settings, context),
      max: 1,
      connectionTimeoutMs: timeoutMs,
    });
    try {
      await driver.query(contextQuery, []);
    } finally {
      await driver.close().catch(() => undefined);
    }
  },
  describeFailure(error, settings, timeoutMs): FailureWords {
    const cause =
      error instanceof StatementRejectedError || error instanceof WarehouseUnavailableError
        ? (error.cause ?? error)
        : error;
    const { code } = errorParts(cause);
    const e = cause as {
      status?: unknown;
      errorCode?: unknown;
      apiMessage?: unknown;
      message?: unknown;
      zone?: unknown;
    };
    const host = String(settings.host);
    const oauth = settings.clientSecretEnc !== undefined && settings.tokenEnc === undefined;
    const warehouseField = settings.warehouseId ? 'warehouseId' : 'httpPath';
    const warehouse = warehouseOf(settings) || String(settings.warehouseId ?? settings.httpPath);
    if (code === 'DATABRICKS_NO_CREDENTIALS')
      return {
        problem: 'login_refused',
        message:
          'No access token or OAuth client is saved: add a personal access token, or a service principal’s client id and secret.',
        field: 'token',
      };
    if (code === 'DATABRICKS_OAUTH_REFUSED')
      return {
        problem: 'login_refused',
        message: `${host} refused the OAuth client ${String(settings.clientId)} at /oidc/v1/token (HTTP ${String(e.status)}): check the client id and secret of the service principal, and that the secret has not expired.`,
        field: 'clientSecret',
      };
    if (code === 'DATABRICKS_NOT_UTC')
      return {
        problem: 'unknown',
        message: `Warehouse ${warehouse} runs statements in the time zone ${String(e.zone)}; Tessera reads timestamps as UTC: set the SQL configuration parameter TIMEZONE to UTC (workspace settings, SQL warehouses) or use a warehouse that keeps the default.`,
        field: null,
      };
    const status = typeof e.status === 'number' ? e.status : 0;
    const apiMessage = typeof e.apiMessage === 'string' ? e.apiMessage : '';
    if (
      status === 401 ||
      (status === 403 && /invalid access token|UNAUTHENTICATED|token/i.test(`${e.errorCode} ${apiMessage}`))
    )
      return oauth
        ? {
            problem: 'login_refused',
            message: `${host} refused the OAuth token of client ${String(settings.clientId)}: the service principal may not be in this workspace.`,
            field: 'clientId',
          }
        : {
            problem: 'login_refused',
            message: `${host} refused the access token: it may have expired, been revoked, or be for another workspace; create a new one (User settings, Developer, Access tokens).`,
            field: 'token',
          };
    if (status === 403)
      return {
        problem: 'permission_missing',
        message: `The token's user may not use SQL warehouse ${warehouse}: ask a workspace admin for CAN USE on it.`,
        field: warehouseField,
      };
    if (status === 404 || e.errorCode === 'RESOURCE_DOES_NOT_EXIST' || e.errorCode === 'NOT_FOUND')
      return e.errorCode
        ? {
            problem: 'database_missing',
            message: `${host} has no SQL warehouse ${warehouse}: copy the HTTP path or id from the warehouse's Connection details.`,
            field: warehouseField,
          }
        : {
            problem: 'host_unreachable',
            message: `${host} answers HTTPS but has no Databricks Statement Execution API (/api/2.0/sql/statements): check the workspace host.`,
            field: 'host',
          };
    const missing = missingObject(String((cause as Error)?.message ?? ''));
    if (missing) {
      const value = String(settings[missing]);
      return {
        problem: 'database_missing',
        message: `Databricks has no ${missing} ${value} that the ${oauth ? 'service principal' : "token's user"} may use: check its name (SHOW ${missing === 'catalog' ? 'CATALOGS' : 'SCHEMAS'} lists them) and its USE ${missing.toUpperCase()} grant.`,
        field: missing,
      };
    }
    const [hostname, port] = host.split(':');
    const network = describeNetworkFailure(
      cause,
      'Databricks',
      { host: hostname, port: port ?? 443 },
      443,
      timeoutMs,
    );
    if (network?.problem === 'tls_failed')
      network.message = `The HTTPS connection to ${host} failed: check its certificate (caCertificate for a private CA).`;
    if (network?.field === 'port') network.field = 'host';
    if (network) return network;
    if (error instanceof StatementRejectedError)
      return {
        problem: 'unknown',
        message: `Databricks refused the test statement: ${error.engineMessage}`,
        field: null,
      };
    return unknownFailure(cause, host);
  },
  // Unity Catalog's information_schema (the current catalog's): columns with their types, and
  // keys, informational in Databricks (declared, not enforced), from TABLE_CONSTRAINTS,
  // KEY_COLUMN_USAGE and REFERENTIAL_CONSTRAINTS, a column a row (merged by constraint name);
  // a hive_metastore catalog has no information_schema, so keys fall back to none
  catalogue: {
    columns: `
      SELECT table_schema AS \`schema\`, table_name AS \`table\`, column_name AS \`column\`,
             data_type AS \`type\`, is_nullable = 'YES' AS \`nullable\`
      FROM information_schema.columns
      WHERE lower(table_schema) <> 'information_schema'
      ORDER BY table_schema, table_name, ordinal_position`,
    keys: `
      SELECT k.table_schema AS \`schema\`, k.table_name AS \`table\`, k.constraint_name AS \`name\`,
             CASE c.constraint_type WHEN 'PRIMARY KEY' THEN 'p' ELSE 'f' END AS \`kind\`,
             k.column_name AS \`columns\`, r.table_schema AS \`ref_schema\`, r.table_name AS \`ref_table\`,
             r.column_name AS \`ref_columns\`
      FROM information_schema.table_constraints c
      JOIN information_schema.key_column_usage k
        ON k.constraint_schema = c.constraint_schema AND k.constraint_name = c.constraint_name
      LEFT JOIN information_schema.referential_constraints f
        ON c.constraint_type = 'FOREIGN KEY'
       AND f.constraint_schema = c.constraint_schema AND f.constraint_name = c.constraint_name
      LEFT JOIN information_schema.key_column_usage r
        ON r.constraint_schema = f.unique_constraint_schema AND r.constraint_name = f.unique_constraint_name
       AND r.ordinal_position = k.position_in_unique_constraint
      WHERE c.constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY') AND lower(c.table_schema) <> 'information_schema'
      ORDER BY 1, 2, 3, k.ordinal_position`,
    fallback: {
      keys: `
      SELECT CAST(NULL AS STRING) AS \`schema\`, CAST(NULL AS STRING) AS \`table\`, 'p' AS \`kind\`,
             CAST(NULL AS STRING) AS \`columns\`, CAST(NULL AS STRING) AS \`ref_schema\`,
             CAST(NULL AS STRING) AS \`ref_table\`, CAST(NULL AS STRING) AS \`ref_columns\`
      WHERE 1 = 0`,
    },
  },
};
