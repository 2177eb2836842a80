import { Type } from 'typebox';
import { BigQueryKeyError, readServiceAccountKey } from '../bigquery-auth.ts';
import type { BigQuerySettings } from '../bigquery-driver.ts';
import { BigQueryApiError } from '../bigquery-faults.ts';
import { describeNetworkFailure, errorParts, type FailureWords, unknownFailure } from '../connection-test.ts';
import { type Driver, StatementRejectedError, WarehouseUnavailableError } from '../driver.ts';
import { type ClearSettings, defaultMaxConnections, type OpenContext, type WarehouseKind } from './kind.ts';

const name = Type.String({ minLength: 1, maxLength: 255 });
/** Project ids are 6-30 lowercase letters, digits and hyphens; older domain-scoped ones `example.com:name`. */
const projectPattern = /^[a-z0-9][a-z0-9.:-]*$/;
/** Dataset names: letters, digits and underscores (BigQuery's "Dataset naming"). */
const datasetPattern = /^[A-Za-z0-9_]+$/;
const defaultEndpoint = 'https://bigquery.googleapis.com';

const input = Type.Object(
  {
    type: Type.Literal('bigquery', { description: 'Google BigQuery, over its REST API v2' }),
    // required, but said by `problems` ("is required for type bigquery"), as for the other kinds
    projectId: Type.Optional({
      ...name,
      description: 'The project jobs run in and are billed to (`my-project-123456`)',
    }),
    location: Type.Optional({
      ...name,
      description:
        "Where the dataset is (`US`, `EU`, `europe-west3`); jobs run there (default: the dataset's)",
    }),
    dataset: Type.Optional({
      ...name,
      description: 'The dataset unqualified table names are read from (the default dataset)',
    }),
    credentials: Type.Optional(
      Type.String({
        maxLength: 16384,
        description:
          "The service account's key, the JSON file Google Cloud creates for it. Write-only; encrypted at rest",
      }),
    ),
    apiEndpoint: Type.Optional(
      Type.String({
        minLength: 9,
        maxLength: 1024,
        pattern: '^https://',
        description: 'Another endpoint than https://bigquery.googleapis.com (Private Service Connect)',
      }),
    ),
    caCertificate: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 16384,
        description:
          "A PEM certificate authority to trust besides the system's, for an endpoint on a private CA",
      }),
    ),
    maximumBytesBilled: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'A query that would bill more bytes fails (a 400) instead of running; default no limit',
      }),
    ),
    maxConnections: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'Jobs the deployment runs on BigQuery at once (default 10); further queries wait',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'BigQuery data source',
    description:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown literally
      "`projectId`, `location`, `dataset` and `credentials` may use the deployment's env variables as `${NAME}`, resolved when the data source connects",
  },
);

const view = Type.Object(
  {
    type: Type.Literal('bigquery'),
    projectId: Type.Optional(Type.String()),
    location: Type.Optional(Type.String()),
    dataset: Type.Optional(Type.String()),
    apiEndpoint: Type.Optional(Type.String()),
    caCertificate: Type.Optional(Type.String()),
    maximumBytesBilled: Type.Optional(Type.Integer()),
    maxConnections: Type.Optional(Type.Integer()),
    hasPassword: Type.Boolean({ description: 'Always false: BigQuery takes a service account key' }),
    hasCredentials: Type.Boolean(),
  },
  { title: 'BigQuery data source (as returned)' },
);

function connection(settings: ClearSettings, context: OpenContext): BigQuerySettings {
  const text = (field: string) => (settings[field] as string | undefined) || undefined;
  return {
    projectId: settings.projectId as string,
    location: text('location'),
    dataset: text('dataset'),
    credentials: text('credentials'),
    apiEndpoint: text('apiEndpoint'),
    caCertificate: text('caCertificate'),
    maximumBytesBilled: settings.maximumBytesBilled as number | undefined,
    deploymentId: context.deploymentId,
  };
}

function openDriver(settings: BigQuerySettings): Promise<Driver> {
  // loaded with the first BigQuery warehouse, not at start (issue 20, item 6)
  return import('../bigquery-driver.ts').then(({ BigQueryDriver }) => new BigQueryDriver(settings));
}

/** The API's host and port, as a message names them. */
function endpointOf(settings: Record<string, unknown>): { host: string; port: number } {
  const endpoint = typeof settings.apiEndpoint === 'string' ? settings.apiEndpoint : defaultEndpoint;
  try {
    const url = new URL(endpoint);
    return { host: url.hostname, port: Number(url.port) || 443 };
  } catch {
    return { host: endpoint, port: 443 };
  }
}

/** Whether a setting is a literal value (not empty, not a `${NAME}` reference resolved later). */
const literal = (v: unknown): v is string => typeof v === 'string' && v !== '' && !v.includes('${');

/**
 * Google BigQuery over its REST API v2 (bigquery-driver.ts), a bounded number of jobs at once per
 * deployment, authenticated by a service account key (sealed, never returned) signing Google's
 * self-signed JWTs.
 */
export const bigqueryKind: WarehouseKind = {
  type: 'bigquery',
  label: 'BigQuery',
  dialect: 'bigquery',
  input,
  view,
  secretFields: ['credentials'],
  referencingFields: ['projectId', 'location', 'dataset', 'credentials'],
  problems(settings) {
    const problems: Array<{ field: string; message: string }> = ['projectId']
      .filter((k) => !settings[k])
      .map((field) => ({ field, message: 'is required for type bigquery' }));
    if (literal(settings.projectId) && !projectPattern.test(settings.projectId))
      problems.push({
        field: 'projectId',
        message: 'must be a project id: lowercase letters, digits and hyphens, such as my-project-123456',
      });
    if (literal(settings.dataset) && !datasetPattern.test(settings.dataset))
      problems.push({ field: 'dataset', message: 'must be a dataset name: letters, digits and underscores' });
    // the key read here, so that a pasted file of another kind is a 400 on save, not a failed
    // login later; the message never quotes the key
    if (literal(settings.credentials)) {
      try {
        readServiceAccountKey(settings.credentials);
      } catch (error) {
        problems.push({
          field: 'credentials',
          message: `is not a service account key JSON${error instanceof BigQueryKeyError ? `: ${error.reason}` : ''}`,
        });
      }
    }
    return problems;
  },
  open: async (settings, context) =>
    openDriver({
      ...connection(settings, context),
      max: (settings.maxConnections as number | undefined) ?? defaultMaxConnections,
    }),
  /**
   * A job proves the endpoint answers, the key is taken and the service account may run jobs in
   * the project; reading the dataset's INFORMATION_SCHEMA.TABLES proves the dataset is there (in
   * the location) and readable.
   */
  async test(settings, context, timeoutMs) {
    const clear = connection(settings, context);
    let account: string | undefined;
    try {
      if (clear.credentials) account = readServiceAccountKey(clear.credentials).clientEmail;
    } catch {}
    const driver = await openDriver({ ...clear, max: 1, connectionTimeoutMs: timeoutMs });
    try {
      await driver.query(
        clear.dataset ? 'SELECT COUNT(*) AS `tables` FROM INFORMATION_SCHEMA.TABLES' : 'SELECT 1 AS `ok`',
        [],
      );
    } catch (error) {
      // the service account's email (no secret: IAM lists it) names who lacks what
      if (account && error && typeof error === 'object') {
        const cause = (error as { cause?: unknown }).cause ?? error;
        Object.assign(cause as object, { account });
      }
      throw error;
    } finally {
      await driver.close().catch(() => undefined);
    }
  },
  describeFailure(error, settings, timeoutMs): FailureWords {
    const cause =
      error instanceof StatementRejectedError || error instanceof WarehouseUnavailableError
        ? error.cause
        : error;
    const { code } = errorParts(cause);
    const project = String(settings.projectId);
    const who =
      typeof (cause as { account?: unknown })?.account === 'string'
        ? `service account ${(cause as { account: string }).account}`
        : 'the service account';
    if (code === 'BIGQUERY_NO_CREDENTIALS')
      return {
        problem: 'login_refused',
        message: 'No service account key is saved: paste the key JSON of a service account.',
        field: 'credentials',
      };
    if (code === 'BIGQUERY_KEY_INVALID')
      return {
        problem: 'login_refused',
        message:
          'The service account key cannot be read: paste the whole JSON file Google Cloud created for the key (its type is service_account).',
        field: 'credentials',
      };
    if (cause instanceof BigQueryApiError) {
      if (cause.status === 401)
        return {
          problem: 'login_refused',
          message: `BigQuery refused the key of ${who}: the key may have been deleted or disabled, or the service account removed; create a new key (IAM & Admin, Service accounts, Keys) and paste it.`,
          field: 'credentials',
        };
      if (cause.reason === 'notFound' && /\bdataset\b/i.test(cause.message))
        return {
          problem: 'database_missing',
          message: `Project ${project} has no dataset ${settings.dataset}${settings.location ? ` in location ${settings.location}` : ''} that ${who} can see: check the dataset's name${settings.location ? ' and location' : ''}.`,
          field: 'dataset',
        };
      if (cause.reason === 'notFound')
        return {
          problem: 'database_missing',
          message: `BigQuery has no project ${project} that ${who} can see: check the project id (not its name or number).`,
          field: 'projectId',
        };
      if (cause.reason === 'accessDenied' || cause.status === 403)
        return {
          problem: 'permission_missing',
          message: `${who[0]!.toUpperCase()}${who.slice(1)} lacks a permission: grant it BigQuery Job User on project ${project}${settings.dataset ? ` and BigQuery Data Viewer on dataset ${settings.dataset}` : ''}, and check that ${project} is the project's id. BigQuery said: ${cause.message}`,
          field: 'credentials',
        };
      if (cause.reason === 'billingNotEnabled')
        return {
          problem: 'permission_missing',
          message: `Project ${project} has no billing account: enable billing, or use the sandbox's limits.`,
          field: 'projectId',
        };
      if (cause.status === 404)
        return {
          problem: 'host_unreachable',
          message: `${endpointOf(settings).host} answers HTTPS but has no BigQuery API (/bigquery/v2): check the API endpoint.`,
          field: 'apiEndpoint',
        };
      return {
        problem: 'unknown',
        message: `BigQuery refused the test query: ${cause.message}`,
        field: null,
      };
    }
    const at = endpointOf(settings);
    const network = describeNetworkFailure(cause, 'BigQuery', at, at.port, timeoutMs);
    if (network) {
      if (network.field === 'host' || network.field === 'port') network.field = 'apiEndpoint';
      if (network.problem === 'tls_failed')
        network.message = `The HTTPS connection to ${at.host} failed: check its certificate (caCertificate for a private CA).`;
      return network;
    }
    return unknownFailure(cause, `${at.host}:${at.port}`);
  },
  // the default dataset's views (unqualified INFORMATION_SCHEMA resolves against it); keys are
  // BigQuery's unenforced primary and foreign keys, where a table declares them
  catalogue: {
    columns: `
      SELECT table_schema AS \`schema\`, table_name AS \`table\`, column_name AS \`column\`,
             data_type AS \`type\`, is_nullable = 'YES' AS \`nullable\`
      FROM INFORMATION_SCHEMA.COLUMNS
      ORDER BY table_schema, table_name, ordinal_position`,
    keys: `
      SELECT k.table_schema AS \`schema\`, k.table_name AS \`table\`, k.constraint_name AS \`name\`,
             CASE c.constraint_type WHEN 'PRIMARY KEY' THEN 'p' ELSE 'f' END AS \`kind\`,
             k.column_name AS \`columns\`, r.table_schema AS \`ref_schema\`,
             r.table_name AS \`ref_table\`, r.column_name AS \`ref_columns\`
      FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS AS c
      JOIN INFORMATION_SCHEMA.KEY_COLUMN_USAGE AS k
        ON k.constraint_name = c.constraint_name AND k.table_name = c.table_name
      LEFT JOIN INFORMATION_SCHEMA.CONSTRAINT_COLUMN_USAGE AS r
        ON c.constraint_type = 'FOREIGN KEY' AND r.constraint_name = c.constraint_name
      WHERE c.constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')
      ORDER BY k.table_schema, k.table_name, k.constraint_name, k.ordinal_position`,
    fallback: {
      keys: `
        SELECT CAST(NULL AS STRING) AS \`schema\`, CAST(NULL AS STRING) AS \`table\`, 'p' AS \`kind\`,
               CAST(NULL AS STRING) AS \`columns\`, CAST(NULL AS STRING) AS \`ref_schema\`,
               CAST(NULL AS STRING) AS \`ref_table\`, CAST(NULL AS STRING) AS \`ref_columns\`
        FROM (SELECT 1) WHERE 1 = 0`,
    },
  },
};
