import type { paths } from '@tessera/client';

/** The body of a data source as the API takes it (`DataSourceInput`). */
export type DataSourceInput =
  paths['/api/v1/data-sources/test']['post']['requestBody']['content']['application/json'];
export type KindType = DataSourceInput['type'];

/** One setting of a warehouse kind, as its form shows it. */
export interface KindField {
  /** The key in `DataSourceInput`. */
  name:
    | 'host'
    | 'port'
    | 'database'
    | 'catalog'
    | 'schema'
    | 'user'
    | 'password'
    | 'ssl'
    | 'maxConnections'
    | 'path'
    | 'region'
    | 'credentials'
    | 'workgroup'
    | 'outputLocation'
    | 'accessKeyId'
    | 'secretAccessKey'
    | 'endpoint'
    | 'projectId'
    | 'location'
    | 'dataset'
    | 'credentials'
    | 'apiEndpoint'
    | 'maximumBytesBilled'
    | 'account'
    | 'warehouse'
    | 'role'
    | 'httpPath'
    | 'warehouseId'
    | 'token'
    | 'clientId'
    | 'clientSecret'
    | 'privateKey'
    | 'privateKeyPassphrase'
    | 'oauthToken';
  label: string;
  /** `textarea`: several lines, e.g. a PEM key. */
  input: 'text' | 'number' | 'password' | 'checkbox' | 'textarea';
  required?: boolean;
  placeholder?: string;
  /** The value a new form starts with. */
  initial?: string;
  /** Write-only: the API never returns it; left empty on an edit, the saved one is kept. */
  secret?: boolean;
  hint?: string;
  /** A checkbox's value in the API when ticked (absent: `true`). */
  checkedValue?: string;
  /** Hidden, and left out of the body, while this checkbox is ticked. */
  unless?: KindField['name'];
}

/** The fields a form shows with these values: those whose `unless` checkbox is not ticked. */
export function shownFields(kind: Kind, values: KindValues): KindField[] {
  return kind.fields.filter((f) => !f.unless || values[f.unless] !== 'true');
}

export interface Kind {
  type: KindType;
  label: string;
  description: string;
  fields: KindField[];
}

/**
 * Trino's and Presto's settings: one client protocol (the server's kinds share one factory,
 * datasources/kinds/trino.ts), told apart by their header prefix only.
 */
function trinoProtocolFields(hostPlaceholder: string): KindField[] {
  return [
    { name: 'host', label: 'Host', input: 'text', required: true, placeholder: hostPlaceholder },
    { name: 'port', label: 'Port', input: 'number', initial: '443' },
    { name: 'ssl', label: 'Use HTTPS', input: 'checkbox', initial: 'true' },
    { name: 'user', label: 'User', input: 'text', required: true },
    {
      name: 'password',
      label: 'Password',
      input: 'password',
      secret: true,
      hint: 'Sent over HTTPS only. A private certificate authority (caCertificate) is set through the API.',
    },
    { name: 'catalog', label: 'Catalog', input: 'text', required: true, placeholder: 'hive' },
    { name: 'schema', label: 'Schema', input: 'text', placeholder: 'default' },
    {
      name: 'maxConnections',
      label: 'Max running queries',
      input: 'number',
      placeholder: '10',
      hint: 'At most this many statements run on the cluster at once; further queries wait.',
    },
  ];
}

/**
 * The warehouse kinds the form offers, one entry each: a new kind (issue 24) is a new entry here
 * and its settings, never a new form.
 */
export const kinds: Kind[] = [
  {
    type: 'postgres',
    label: 'PostgreSQL',
    description: 'A PostgreSQL server (also Amazon RDS, Cloud SQL, Supabase, Neon).',
    fields: [
      { name: 'host', label: 'Host', input: 'text', required: true, placeholder: 'db.example.com' },
      { name: 'port', label: 'Port', input: 'number', initial: '5432' },
      { name: 'database', label: 'Database', input: 'text', required: true },
      { name: 'user', label: 'User', input: 'text' },
      { name: 'password', label: 'Password', input: 'password', secret: true },
      { name: 'ssl', label: 'Use SSL', input: 'checkbox' },
      {
        name: 'maxConnections',
        label: 'Max connections',
        input: 'number',
        placeholder: '10',
        hint: 'At most this many connections to the server; further queries wait for one.',
      },
    ],
  },
  {
    type: 'mysql',
    label: 'MySQL / MariaDB',
    description: 'A MySQL 8 or MariaDB server (also Amazon RDS and Aurora MySQL, Cloud SQL for MySQL).',
    fields: [
      { name: 'host', label: 'Host', input: 'text', required: true, placeholder: 'db.example.com' },
      { name: 'port', label: 'Port', input: 'number', initial: '3306' },
      { name: 'database', label: 'Database', input: 'text', required: true },
      { name: 'user', label: 'User', input: 'text' },
      { name: 'password', label: 'Password', input: 'password', secret: true },
      { name: 'ssl', label: 'Use SSL', input: 'checkbox' },
      {
        name: 'maxConnections',
        label: 'Max connections',
        input: 'number',
        placeholder: '10',
        hint: 'At most this many connections to the server; further queries wait for one.',
      },
    ],
  },
  {
    type: 'trino',
    label: 'Trino',
    description: 'A Trino or Starburst cluster, over its HTTP protocol.',
    fields: trinoProtocolFields('trino.example.com'),
  },
  {
    type: 'presto',
    label: 'Presto',
    description: 'A Presto (prestodb) cluster, over its HTTP protocol; queries in UTC only.',
    fields: trinoProtocolFields('presto.example.com'),
  },
  {
    type: 'redshift',
    label: 'Amazon Redshift',
    description: 'An Amazon Redshift cluster or Serverless workgroup.',
    fields: [
      {
        name: 'host',
        label: 'Host',
        input: 'text',
        required: true,
        placeholder: 'examplecluster.abc123.us-west-2.redshift.amazonaws.com',
      },
      { name: 'port', label: 'Port', input: 'number', initial: '5439' },
      { name: 'database', label: 'Database', input: 'text', required: true, placeholder: 'dev' },
      { name: 'user', label: 'User', input: 'text' },
      { name: 'password', label: 'Password', input: 'password', secret: true },
      { name: 'ssl', label: 'Use SSL', input: 'checkbox', initial: 'true' },
      {
        name: 'maxConnections',
        label: 'Max connections',
        input: 'number',
        placeholder: '10',
        hint: 'At most this many connections to the cluster; further queries wait for one.',
      },
    ],
  },
  {
    type: 'clickhouse',
    label: 'ClickHouse',
    description: 'A ClickHouse server or ClickHouse Cloud, over its HTTP interface.',
    fields: [
      { name: 'host', label: 'Host', input: 'text', required: true, placeholder: 'clickhouse.example.com' },
      { name: 'port', label: 'Port', input: 'number', placeholder: '8443 with HTTPS, 8123 without' },
      { name: 'ssl', label: 'Use HTTPS', input: 'checkbox', initial: 'true' },
      { name: 'database', label: 'Database', input: 'text', placeholder: 'default' },
      { name: 'user', label: 'User', input: 'text', placeholder: 'default' },
      { name: 'password', label: 'Password', input: 'password', secret: true },
      {
        name: 'maxConnections',
        label: 'Max connections',
        input: 'number',
        placeholder: '10',
        hint: 'At most this many queries run on the server at once; further queries wait for one.',
      },
    ],
  },
  {
    type: 'athena',
    label: 'Amazon Athena',
    description: "Amazon Athena (engine version 3), with an access key or this server's IAM role.",
    fields: [
      { name: 'region', label: 'Region', input: 'text', required: true, placeholder: 'eu-west-1' },
      { name: 'workgroup', label: 'Workgroup', input: 'text', placeholder: 'primary' },
      {
        name: 'outputLocation',
        label: 'Result location',
        input: 'text',
        placeholder: 's3://bucket/athena-results/',
        hint: "Where Athena writes query results; empty: the workgroup's own.",
      },
      { name: 'catalog', label: 'Catalog', input: 'text', placeholder: 'AwsDataCatalog' },
      { name: 'database', label: 'Database', input: 'text', required: true },
      {
        name: 'credentials',
        label: "Query as this server's own AWS identity (its IAM role)",
        input: 'checkbox',
        checkedValue: 'server',
        hint: 'Only where the operator started Tessera with TESSERA_AWS_SERVER_CREDENTIALS=1.',
      },
      { name: 'accessKeyId', label: 'Access key id', input: 'text', required: true, unless: 'credentials' },
      {
        name: 'secretAccessKey',
        label: 'Secret access key',
        input: 'password',
        secret: true,
        unless: 'credentials',
      },
      {
        name: 'endpoint',
        label: 'Endpoint',
        input: 'text',
        placeholder: 'https://athena.eu-west-1.amazonaws.com',
        hint: "Only for a VPC interface endpoint; empty: the region's.",
      },
      {
        name: 'maxConnections',
        label: 'Max running queries',
        input: 'number',
        placeholder: '10',
        hint: 'At most this many queries run on Athena at once; further queries wait.',
      },
    ],
  },
  {
    type: 'bigquery',
    label: 'Google BigQuery',
    description: 'A Google BigQuery project, over its REST API, with a service account key.',
    fields: [
      {
        name: 'projectId',
        label: 'Project id',
        input: 'text',
        required: true,
        placeholder: 'my-project-123456',
        hint: 'The project queries run in and are billed to (its id, not its name).',
      },
      {
        name: 'dataset',
        label: 'Dataset',
        input: 'text',
        placeholder: 'analytics',
        hint: 'Where table names without a dataset are read from.',
      },
      {
        name: 'location',
        label: 'Location',
        input: 'text',
        placeholder: 'EU',
        hint: "The dataset's location; empty: found by BigQuery.",
      },
      {
        name: 'credentials',
        label: 'Service account key (JSON)',
        input: 'textarea',
        secret: true,
        placeholder: '{"type": "service_account", ...}',
        hint: 'The key file Google Cloud creates for the service account (IAM & Admin, Service accounts, Keys); it needs BigQuery Job User on the project and BigQuery Data Viewer on the dataset.',
      },
      {
        name: 'maximumBytesBilled',
        label: 'Maximum bytes billed',
        input: 'number',
        hint: 'A query that would bill more fails instead of running; empty: no limit.',
      },
      {
        name: 'apiEndpoint',
        label: 'API endpoint',
        input: 'text',
        placeholder: 'https://bigquery.googleapis.com',
        hint: "Only for Private Service Connect; empty: Google's.",
      },
      {
        name: 'maxConnections',
        label: 'Max running queries',
        input: 'number',
        placeholder: '10',
        hint: 'At most this many jobs run on BigQuery at once; further queries wait.',
      },
    ],
  },
  {
    type: 'snowflake',
    label: 'Snowflake',
    description: 'A Snowflake account, over its SQL API, with a key pair or an OAuth token.',
    fields: [
      {
        name: 'account',
        label: 'Account',
        input: 'text',
        required: true,
        placeholder: 'myorg-myaccount',
        hint: 'The account identifier, as in https://<account>.snowflakecomputing.com.',
      },
      { name: 'user', label: 'User', input: 'text', required: true, placeholder: 'TESSERA' },
      { name: 'warehouse', label: 'Warehouse', input: 'text', placeholder: 'REPORTING_WH' },
      { name: 'database', label: 'Database', input: 'text', placeholder: 'ANALYTICS' },
      { name: 'schema', label: 'Schema', input: 'text', placeholder: 'PUBLIC' },
      { name: 'role', label: 'Role', input: 'text', hint: "Empty: the user's default role." },
      {
        name: 'privateKey',
        label: 'Private key (PEM)',
        input: 'textarea',
        secret: true,
        placeholder: '-----BEGIN PRIVATE KEY-----',
        hint: 'The key whose public half is set on the user (ALTER USER … SET RSA_PUBLIC_KEY).',
      },
      { name: 'privateKeyPassphrase', label: 'Key passphrase', input: 'password', secret: true },
      {
        name: 'oauthToken',
        label: 'OAuth token',
        input: 'password',
        secret: true,
        hint: 'Instead of a key pair.',
      },
      {
        name: 'maxConnections',
        label: 'Max running queries',
        input: 'number',
        placeholder: '10',
        hint: 'At most this many statements run on the account at once; further queries wait.',
      },
    ],
  },
  {
    type: 'databricks',
    label: 'Databricks SQL',
    description:
      'A Databricks SQL warehouse, over its Statement Execution API, with a personal access token or an OAuth service principal.',
    fields: [
      {
        name: 'host',
        label: 'Workspace host',
        input: 'text',
        required: true,
        placeholder: 'dbc-a1b2c3d4-e5f6.cloud.databricks.com',
        hint: 'Server hostname from the warehouse’s Connection details.',
      },
      {
        name: 'httpPath',
        label: 'HTTP path',
        input: 'text',
        required: true,
        placeholder: '/sql/1.0/warehouses/a1b2c3d4e5f60718',
        hint: 'HTTP path from the warehouse’s Connection details.',
      },
      { name: 'catalog', label: 'Catalog', input: 'text', placeholder: 'main' },
      { name: 'schema', label: 'Schema', input: 'text', placeholder: 'default' },
      {
        name: 'token',
        label: 'Access token',
        input: 'password',
        secret: true,
        hint: 'A personal access token (User settings, Developer, Access tokens).',
      },
      {
        name: 'clientId',
        label: 'OAuth client id',
        input: 'text',
        hint: 'Instead of a token: a service principal’s client id and OAuth secret.',
      },
      { name: 'clientSecret', label: 'OAuth secret', input: 'password', secret: true },
      {
        name: 'maxConnections',
        label: 'Max running queries',
        input: 'number',
        placeholder: '10',
        hint: 'At most this many statements run on the warehouse at once; further queries wait.',
      },
    ],
  },
  {
    type: 'duckdb',
    label: 'DuckDB',
    description: "A DuckDB file in the server's data directory, or the generated sample data.",
    fields: [
      {
        name: 'path',
        label: 'File',
        input: 'text',
        required: true,
        placeholder: 'warehouses/shop.duckdb',
        initial: ':sample:',
        hint: "A path relative to the server's data directory; :sample: for the sample data.",
      },
    ],
  },
];

export function kindOf(type: string): Kind {
  return kinds.find((k) => k.type === type) ?? kinds[0]!;
}

/** Form values: text per field, `'true'`/`''` for a checkbox. */
export type KindValues = Partial<Record<KindField['name'], string>>;

export function initialValues(kind: Kind): KindValues {
  return Object.fromEntries(kind.fields.map((f) => [f.name, f.initial ?? ''])) as KindValues;
}

/** The values of a saved data source, its secrets left empty (the API never returns them). */
export function savedValues(kind: Kind, saved: Record<string, unknown>): KindValues {
  return Object.fromEntries(
    kind.fields.map((f) => {
      const v = f.secret ? undefined : f.checkedValue ? saved[f.name] === f.checkedValue : saved[f.name];
      return [
        f.name,
        v === undefined || v === null ? '' : v === true ? 'true' : v === false ? '' : String(v),
      ];
    }),
  ) as KindValues;
}

/**
 * The secret fields a saved data source has a value for: the API answers `has<Field>` for each
 * (`hasPassword`, `hasPrivateKey`, `hasSecretAccessKey`), never the value.
 */
export function savedSecrets(kind: Kind, saved: Record<string, unknown>): ReadonlySet<string> {
  return new Set(
    kind.fields
      .filter((f) => f.secret && saved[`has${f.name[0]!.toUpperCase()}${f.name.slice(1)}`] === true)
      .map((f) => f.name),
  );
}

/** The API body of the form: empty fields left out, numbers and checkboxes as their types. */
export function toInput(kind: Kind, values: KindValues): DataSourceInput {
  const body: Record<string, unknown> = { type: kind.type };
  for (const f of shownFields(kind, values)) {
    const v = values[f.name] ?? '';
    if (f.input === 'checkbox') {
      if (v === 'true') body[f.name] = f.checkedValue ?? true;
    } else if (v.trim() !== '') {
      body[f.name] =
        f.input === 'number' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : f.secret ? v : v.trim();
    }
  }
  return body as DataSourceInput;
}

/** Where a saved data source points, as a page shows it: ` · host:port / database`, ` · region / database` or ` · path`. */
export function sourceSummary(source: object, withPort = true): string {
  const s = source as Partial<Record<KindField['name'], unknown>>;
  const port = withPort && s.port ? `:${s.port}` : '';
  // BigQuery names a project and a dataset, Databricks a catalog where the others name a database
  const database = s.database ?? s.dataset ?? s.catalog;
  return `${s.account ? ` · ${s.account}` : ''}${s.projectId ? ` · ${s.projectId}` : ''}${s.host ? ` · ${s.host}${port}` : ''}${s.region ? ` · ${s.region}` : ''}${database ? ` / ${database}` : ''}${s.path ? ` · ${s.path}` : ''}`;
}
