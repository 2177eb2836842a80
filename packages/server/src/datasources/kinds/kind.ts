import type { DialectName } from '@tessera/semantic';
import { type TObject, Type } from 'typebox';
import type { ConnectionTest } from '../connection-test.ts';
import type { Driver } from '../driver.ts';

/**
 * A data source as it is stored and handed around: `type` names its kind, the kind's own settings
 * follow, each secret sealed as `<field>Enc` (never in clear at rest, never returned).
 */
export interface StoredSettings {
  type: string;
  [field: string]: unknown;
}

/** The same settings to connect with: secrets opened, `${NAME}` references replaced. */
export type ClearSettings = Record<string, unknown> & { type: string };

/** What a kind's driver needs from the server beyond its own settings. */
export interface OpenContext {
  dataDir: string;
  /** Rows scale of a sample database generated on first use (TESSERA_SAMPLE_SCALE). */
  sampleScale: number;
  /** Drivers kept across deployments (one DuckDB instance per file), owned by the registry. */
  shared: Map<string, Promise<Driver>>;
  /** The deployment the driver serves, for query tags on engines that take them (null: a test). */
  deploymentId: number | null;
  /** Whether a data source may use this server's own cloud identity (TESSERA_AWS_SERVER_CREDENTIALS). */
  awsServerCredentials?: boolean;
}

/** A viewer's own connection: who, their current token, and the small pool they get. */
export interface ViewerConnection {
  userId: number;
  /** Read at each new connection, so that a refreshed token is used without a new pool. */
  password: () => string;
  poolSize: number;
  idleMs: number;
}

/** Catalogue queries for introspection (introspect.ts): see `ColumnRow` and `KeyRow` there. */
export interface Catalogue {
  columns: string;
  keys: string;
  /** Asked when the query above fails as a statement (a system view missing or not readable). */
  fallback?: Partial<Pick<Catalogue, 'columns' | 'keys'>>;
}

/**
 * One warehouse kind, the only file a new warehouse adds (issue 24 item 0): the registry, the
 * deployments service and the API's schemas iterate the table of them (kinds/index.ts).
 */
export interface WarehouseKind {
  readonly type: string;
  /** The engine's name in messages ("PostgreSQL refused the login ..."). */
  readonly label: string;
  readonly dialect: DialectName;
  /** The API body's member of the `DataSourceInput` union: `type` a literal, then its own fields. */
  readonly input: TObject;
  /** What the API returns: the input's fields without secrets, `hasPassword` for a sealed password. */
  readonly view: TObject;
  /** Input fields stored sealed (`<field>Enc`) and never returned. */
  readonly secretFields: readonly string[];
  /** Text fields that may name the deployment's env variables as `${NAME}` (env-references.ts). */
  readonly referencingFields: readonly string[];
  /** Drivers from `shared` are not closed when one deployment using them changes its settings. */
  readonly sharesDrivers?: boolean;
  /** Problems the schema cannot say, by field name (`host` required, a path outside the data directory). */
  problems(input: Record<string, unknown>): Array<{ field: string; message: string }>;
  /** Settings as saved: defaults filled in (`:sample:` for a DuckDB without path). */
  normalize?(input: Record<string, unknown>): Record<string, unknown>;
  /** The deployment's driver (a bounded pool for a server engine). */
  open(settings: ClearSettings, context: OpenContext): Promise<Driver>;
  /**
   * A pool of one account user's own, authenticated with their OAuth access token (issue 22 item
   * 6); absent: the kind cannot, and every query uses the data source's own login.
   */
  openForViewer?(settings: ClearSettings, context: OpenContext, viewer: ViewerConnection): Promise<Driver>;
  /** Connects with a connection of its own and runs `SELECT 1`; throws what stopped it. */
  test(settings: ClearSettings, context: OpenContext, timeoutMs: number): Promise<void>;
  /** Words for a failed test, built from the stored settings (a reference stays a reference). */
  describeFailure(
    error: unknown,
    stored: StoredSettings,
    timeoutMs: number,
  ): Omit<ConnectionTest, 'ok' | 'durationMs'>;
  readonly catalogue: Catalogue;
}

/** The bound of a deployment's pool on a server engine when `maxConnections` does not say (issue 24 item 3). */
export const defaultMaxConnections = 10;

/**
 * `host`, `port`, `database`, `user`, `password`, `ssl`, `maxConnections`: the settings of a
 * server engine.
 */
export function serverFields(type: string, label: string, defaultPort: number) {
  const input = Type.Object(
    {
      type: Type.Literal(type, { description: `${label}` }),
      // required, but said by `problems` ("is required for type postgres") as before the union
      host: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      port: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 65535, description: `Default ${defaultPort}` }),
      ),
      database: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      user: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      password: Type.Optional(Type.String({ maxLength: 1024, description: 'Write-only; encrypted at rest' })),
      ssl: Type.Optional(Type.Boolean()),
      maxConnections: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 100,
          description:
            'Connections the deployment opens to the server at most (default 10); further queries wait for one',
        }),
      ),
    },
    {
      additionalProperties: false,
      title: `${label} data source`,
      description:
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown literally
        "`host`, `database`, `user` and `password` may use the deployment's env variables as `${NAME}`, resolved when the data source connects",
    },
  );
  const view = Type.Object(
    {
      type: Type.Literal(type),
      host: Type.Optional(Type.String()),
      port: Type.Optional(Type.Integer()),
      database: Type.Optional(Type.String()),
      user: Type.Optional(Type.String()),
      ssl: Type.Optional(Type.Boolean()),
      maxConnections: Type.Optional(Type.Integer()),
      hasPassword: Type.Boolean(),
    },
    { title: `${label} data source (as returned)` },
  );
  const problems = (settings: Record<string, unknown>) =>
    (['host', 'database'] as const)
      .filter((k) => !settings[k])
      .map((field) => ({ field, message: `is required for type ${type}` }));
  return {
    input,
    view,
    problems,
    secretFields: ['password'],
    referencingFields: ['host', 'database', 'user', 'password'],
  } as const;
}
