import { Type } from 'typebox';
import type { AthenaSettings } from '../athena-driver.ts';
import { describeNetworkFailure, errorParts, type FailureWords, unknownFailure } from '../connection-test.ts';
import { type Driver, StatementRejectedError, WarehouseUnavailableError } from '../driver.ts';
import { literal } from '../trino-literals.ts';
import { type ClearSettings, defaultMaxConnections, type OpenContext, type WarehouseKind } from './kind.ts';

const name = Type.String({ minLength: 1, maxLength: 255 });

const input = Type.Object(
  {
    type: Type.Literal('athena', { description: 'Amazon Athena (engine version 3)' }),
    // required, but said by `problems` ("is required for type athena"), as for the other kinds
    region: Type.Optional({ ...name, description: 'The AWS region, such as eu-west-1' }),
    workgroup: Type.Optional({ ...name, description: 'The workgroup queries run in (default primary)' }),
    outputLocation: Type.Optional(
      Type.String({
        minLength: 6,
        maxLength: 1024,
        pattern: '^s3://',
        description: "s3://bucket/prefix/ for query results; absent: the workgroup's result location",
      }),
    ),
    catalog: Type.Optional({ ...name, description: 'The data catalog (default AwsDataCatalog)' }),
    database: Type.Optional({ ...name, description: 'The database unqualified table names are read from' }),
    credentials: Type.Optional(
      Type.Union([Type.Literal('accessKey'), Type.Literal('server')], {
        description:
          "`accessKey` (default): the access key below. `server`: this server's own AWS identity (its environment, EKS web identity, ECS task role or EC2 instance profile), where the operator allows it (TESSERA_AWS_SERVER_CREDENTIALS)",
      }),
    ),
    accessKeyId: Type.Optional({ ...name, description: 'The access key id of an IAM user or role' }),
    secretAccessKey: Type.Optional(
      Type.String({ maxLength: 1024, description: 'Write-only; encrypted at rest; never returned' }),
    ),
    endpoint: Type.Optional(
      Type.String({
        minLength: 8,
        maxLength: 1024,
        pattern: '^https?://',
        description: "Another endpoint than the region's, such as a VPC interface endpoint",
      }),
    ),
    maxConnections: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'Queries the deployment runs on Athena at once (default 10); further queries wait',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'Athena data source',
    description:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown literally
      "`region`, `workgroup`, `outputLocation`, `catalog`, `database`, `accessKeyId` and `secretAccessKey` may use the deployment's env variables as `${NAME}`, resolved when the data source connects",
  },
);

const view = Type.Object(
  {
    type: Type.Literal('athena'),
    region: Type.Optional(Type.String()),
    workgroup: Type.Optional(Type.String()),
    outputLocation: Type.Optional(Type.String()),
    catalog: Type.Optional(Type.String()),
    database: Type.Optional(Type.String()),
    credentials: Type.Optional(Type.Union([Type.Literal('accessKey'), Type.Literal('server')])),
    accessKeyId: Type.Optional(Type.String()),
    endpoint: Type.Optional(Type.String()),
    maxConnections: Type.Optional(Type.Integer()),
    hasPassword: Type.Boolean({ description: 'Always false: Athena signs with an access key' }),
    hasSecretAccessKey: Type.Boolean(),
  },
  { title: 'Athena data source (as returned)' },
);

const usesServerIdentity = (settings: Record<string, unknown>) => settings.credentials === 'server';

function connection(settings: ClearSettings, context: OpenContext): AthenaSettings {
  if (usesServerIdentity(settings)) {
    // checked when connecting, not when saving: the operator may turn it on or off at any start
    if (!context.awsServerCredentials)
      throw Object.assign(new Error('server credentials off'), { code: 'ATHENA_SERVER_CREDENTIALS_OFF' });
  } else if (typeof settings.secretAccessKey !== 'string' || settings.secretAccessKey === '')
    throw Object.assign(new Error('no secret access key'), { code: 'ATHENA_NO_SECRET' });
  return {
    region: settings.region as string,
    workgroup: settings.workgroup as string | undefined,
    outputLocation: settings.outputLocation as string | undefined,
    catalog: settings.catalog as string | undefined,
    database: settings.database as string,
    accessKeyId: settings.accessKeyId as string | undefined,
    secretAccessKey: settings.secretAccessKey as string | undefined,
    endpoint: settings.endpoint as string | undefined,
    deploymentId: context.deploymentId,
  };
}

function openDriver(settings: AthenaSettings): Promise<Driver> {
  // loaded with the first Athena warehouse, not at start (issue 20, item 6): the SDK is large
  return import('../athena-driver.ts').then(({ AthenaDriver }) => new AthenaDriver(settings));
}

/** Where the SDK sends its calls, as a message names it. */
function endpointOf(settings: Record<string, unknown>): { host: string; port: number } {
  if (typeof settings.endpoint === 'string') {
    try {
      const url = new URL(settings.endpoint);
      return { host: url.hostname, port: Number(url.port) || (url.protocol === 'http:' ? 80 : 443) };
    } catch {
      // a reference (`${NAME}`) as stored: named as written
      return { host: settings.endpoint, port: 443 };
    }
  }
  return { host: `athena.${settings.region}.amazonaws.com`, port: 443 };
}

/** The service error's name and message (the AWS JSON protocol's `__type` and `message`). */
function awsError(error: unknown): { name: string; message: string } {
  const e = error as { name?: unknown; message?: unknown };
  return {
    name: typeof e?.name === 'string' ? e.name : '',
    message: typeof e?.message === 'string' ? e.message : '',
  };
}

/**
 * Amazon Athena (engine version 3) through AWS's SDK (athena-driver.ts): the SQL is Trino's (the
 * `athena` dialect), the SDK signs each call with the data source's access key, and a bounded
 * number of queries run at once per deployment.
 */
export const athenaKind: WarehouseKind = {
  type: 'athena',
  label: 'Athena',
  dialect: 'athena',
  input,
  view,
  secretFields: ['secretAccessKey'],
  referencingFields: [
    'region',
    'workgroup',
    'outputLocation',
    'catalog',
    'database',
    'accessKeyId',
    'secretAccessKey',
  ],
  problems(settings) {
    const server = usesServerIdentity(settings);
    const problems: Array<{ field: string; message: string }> = ['region', 'database', 'accessKeyId']
      .filter((k) => !settings[k] && !(server && k === 'accessKeyId'))
      .map((field) => ({ field, message: 'is required for type athena' }));
    // the server's identity or a key, never both: a key beside `server` would be silently unused
    if (server)
      for (const field of ['accessKeyId', 'secretAccessKey'])
        if (settings[field] !== undefined)
          problems.push({ field, message: 'must be absent when credentials is server' });
    const region = settings.region;
    if (typeof region === 'string' && !region.includes('${') && !/^[a-z]{2}(-[a-z]+)+-\d+$/.test(region))
      problems.push({ field: 'region', message: 'is not an AWS region name (such as eu-west-1)' });
    return problems;
  },
  open: async (settings, context) =>
    openDriver({
      ...connection(settings, context),
      max: (settings.maxConnections as number | undefined) ?? defaultMaxConnections,
    }),
  /**
   * `SELECT 1` proves the key is valid, may run queries in the workgroup and has a result
   * location; the database's row in information_schema proves the catalog and database exist.
   */
  async test(settings, context, timeoutMs) {
    const driver = await openDriver({
      ...connection(settings, context),
      max: 1,
      connectionTimeoutMs: timeoutMs,
    });
    try {
      await driver.query('SELECT 1', []);
      const rows = await driver.query(
        `SELECT schema_name FROM information_schema.schemata WHERE schema_name = ${literal(settings.database as string)}`,
        [],
      );
      if (rows.length === 0)
        throw Object.assign(new Error('database missing'), { code: 'ATHENA_DATABASE_MISSING' });
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
    const { name: type, message } = awsError(cause);
    const region = settings.region;
    const key = settings.accessKeyId;
    const who = usesServerIdentity(settings) ? "This server's AWS identity" : `Access key ${key}`;
    if (code === 'ATHENA_SERVER_CREDENTIALS_OFF')
      return {
        problem: 'login_refused',
        message:
          'This server does not lend its own AWS identity to data sources: enter an access key, or ask the operator to start Tessera with TESSERA_AWS_SERVER_CREDENTIALS=1.',
        field: 'credentials',
      };
    if ((cause as { name?: unknown })?.name === 'CredentialsProviderError')
      return {
        problem: 'login_refused',
        message:
          'This server has no AWS identity to query with (no AWS_ACCESS_KEY_ID, web identity, task role or instance profile): give it one, or enter an access key.',
        field: 'credentials',
      };
    if (code === 'ATHENA_NO_SECRET')
      return {
        problem: 'login_refused',
        message: `No secret access key is saved for access key ${key}: enter the key's secret.`,
        field: 'secretAccessKey',
      };
    if (type === 'UnrecognizedClientException')
      return {
        problem: 'login_refused',
        message: `AWS does not know the access key ${key}: check the access key id (the IAM console lists an IAM user's keys), or create a key.`,
        field: 'accessKeyId',
      };
    if (type === 'InvalidSignatureException')
      return {
        problem: 'login_refused',
        message: `AWS refused the signature of access key ${key}: the secret access key is not that key's; enter it again.`,
        field: 'secretAccessKey',
      };
    if (type === 'AccessDeniedException')
      return {
        problem: 'permission_missing',
        message: `${who} may not run Athena queries: give its IAM user or role athena:StartQueryExecution, GetQueryExecution, GetQueryResults and StopQueryExecution, and read access to the data and the result location.`,
        field: 'accessKeyId',
      };
    if (type === 'InvalidRequestException' && /output location/i.test(message))
      return {
        problem: 'database_missing',
        message: `Workgroup ${settings.workgroup ?? 'primary'} has no result location: set the output location (s3://bucket/prefix/).`,
        field: 'outputLocation',
      };
    if (type === 'InvalidRequestException' && /workgroup/i.test(message))
      return {
        problem: 'database_missing',
        message: `Athena in ${region} has no workgroup ${settings.workgroup ?? 'primary'} this key may use: check the workgroup name.`,
        field: 'workgroup',
      };
    if (code === 'ATHENA_DATABASE_MISSING')
      return {
        problem: 'database_missing',
        message: `Catalog ${settings.catalog ?? 'AwsDataCatalog'} has no database ${settings.database}: check the database name (SHOW DATABASES lists them).`,
        field: 'database',
      };
    const at = endpointOf(settings);
    return (
      describeNetworkFailure(cause, 'Athena', { host: at.host, port: at.port }, at.port, timeoutMs) ??
      unknownFailure(cause, `${at.host}:${at.port}`)
    );
  },
  // Athena keeps no keys (Glue tables declare none): columns only, and an empty key list
  catalogue: {
    columns: `
      SELECT table_schema AS "schema", table_name AS "table", column_name AS "column",
             data_type AS "type", is_nullable = 'YES' AS "nullable"
      FROM information_schema.columns
      WHERE table_schema NOT IN ('information_schema')
      ORDER BY table_schema, table_name, ordinal_position`,
    keys: `
      SELECT CAST(NULL AS VARCHAR) AS "schema", CAST(NULL AS VARCHAR) AS "table", 'p' AS "kind",
             CAST(NULL AS VARCHAR) AS "columns", CAST(NULL AS VARCHAR) AS "ref_schema",
             CAST(NULL AS VARCHAR) AS "ref_table", CAST(NULL AS VARCHAR) AS "ref_columns"
      WHERE 1 = 0`,
  },
};
