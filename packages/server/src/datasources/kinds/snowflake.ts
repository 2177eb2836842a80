import { Type } from 'typebox';
import { describeNetworkFailure, errorParts, type FailureWords, unknownFailure } from '../connection-test.ts';
import { type Driver, StatementRejectedError } from '../driver.ts';
import { publicKeyFingerprint, readPrivateKey, SnowflakeKeyError } from '../snowflake-auth.ts';
import type { SnowflakeSettings } from '../snowflake-driver.ts';
import { type ClearSettings, defaultMaxConnections, type OpenContext, type WarehouseKind } from './kind.ts';

const name = Type.String({ minLength: 1, maxLength: 255 });
const accountPattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const hostPattern = /^[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?$/;
const secret = (description: string) => Type.Optional(Type.String({ maxLength: 16384, description }));

const input = Type.Object(
  {
    type: Type.Literal('snowflake', { description: 'Snowflake, over its SQL API' }),
    // required, but said by `problems` ("is required for type snowflake"), as for the other kinds
    account: Type.Optional({
      ...name,
      description:
        'The account identifier: `myorg-myaccount`, or an account locator with its region (`xy12345.us-east-1`)',
    }),
    host: Type.Optional({
      ...name,
      description:
        'Another host than `<account>.snowflakecomputing.com` (private link), as `name` or `name:port`; always HTTPS',
    }),
    user: Type.Optional({ ...name, description: 'The Snowflake user; required' }),
    warehouse: Type.Optional({
      ...name,
      description: "The warehouse statements run on (default: the user's)",
    }),
    database: Type.Optional({ ...name, description: 'The database unqualified table names are read from' }),
    schema: Type.Optional({ ...name, description: 'The schema unqualified table names are read from' }),
    role: Type.Optional({ ...name, description: "The role statements run as (default: the user's)" }),
    privateKey: secret(
      "Key-pair authentication: the PEM private key (PKCS#8) whose public key is the user's RSA_PUBLIC_KEY. Write-only; encrypted at rest",
    ),
    privateKeyPassphrase: secret(
      'The private key’s passphrase, if it is encrypted. Write-only; encrypted at rest',
    ),
    oauthToken: secret(
      'OAuth authentication instead of a key: an access token for the user. Write-only; encrypted at rest',
    ),
    caCertificate: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 16384,
        description:
          "A PEM certificate authority to trust besides the system's, for private link on a private CA",
      }),
    ),
    maxConnections: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'Statements the deployment runs on Snowflake at once (default 10); further queries wait',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'Snowflake data source',
    description:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown literally
      "Every text field but `caCertificate` may use the deployment's env variables as `${NAME}`, resolved when the data source connects",
  },
);

const view = Type.Object(
  {
    type: Type.Literal('snowflake'),
    account: Type.Optional(Type.String()),
    host: Type.Optional(Type.String()),
    user: Type.Optional(Type.String()),
    warehouse: Type.Optional(Type.String()),
    database: Type.Optional(Type.String()),
    schema: Type.Optional(Type.String()),
    role: Type.Optional(Type.String()),
    caCertificate: Type.Optional(Type.String()),
    maxConnections: Type.Optional(Type.Integer()),
    hasPassword: Type.Boolean({
      description: 'Always false: Snowflake takes a private key or an OAuth token',
    }),
    hasPrivateKey: Type.Boolean(),
    hasPrivateKeyPassphrase: Type.Boolean(),
    hasOauthToken: Type.Boolean(),
  },
  { title: 'Snowflake data source (as returned)' },
);

function connection(settings: ClearSettings, context: OpenContext): SnowflakeSettings {
  const text = (field: string) => (settings[field] as string | undefined) || undefined;
  return {
    account: settings.account as string,
    host: text('host'),
    user: settings.user as string,
    warehouse: text('warehouse'),
    database: text('database'),
    schema: text('schema'),
    role: text('role'),
    privateKey: text('privateKey'),
    privateKeyPassphrase: text('privateKeyPassphrase'),
    oauthToken: text('oauthToken'),
    caCertificate: text('caCertificate'),
    deploymentId: context.deploymentId,
  };
}

function openDriver(settings: SnowflakeSettings): Promise<Driver> {
  // loaded with the first Snowflake warehouse, not at start (issue 20, item 6)
  return import('../snowflake-driver.ts').then(({ SnowflakeDriver }) => new SnowflakeDriver(settings));
}

/** A session function's value in the connection test's row; null: the object is not there for the role. */
const contextQuery =
  'SELECT CURRENT_WAREHOUSE() AS "warehouse", CURRENT_DATABASE() AS "database", CURRENT_SCHEMA() AS "schema"';

/**
 * Snowflake over its SQL API v2 (snowflake-driver.ts), a bounded number of statements at once per
 * deployment, authenticated by a key pair or an OAuth token (both sealed, never returned).
 */
export const snowflakeKind: WarehouseKind = {
  type: 'snowflake',
  label: 'Snowflake',
  dialect: 'snowflake',
  input,
  view,
  secretFields: ['privateKey', 'privateKeyPassphrase', 'oauthToken'],
  referencingFields: [
    'account',
    'host',
    'user',
    'warehouse',
    'database',
    'schema',
    'role',
    'privateKey',
    'privateKeyPassphrase',
    'oauthToken',
  ],
  problems(settings) {
    const problems: Array<{ field: string; message: string }> = ['account', 'user']
      .filter((k) => !settings[k])
      .map((field) => ({ field, message: 'is required for type snowflake' }));
    const literal = (v: unknown): v is string => typeof v === 'string' && v !== '' && !v.includes('${');
    if (literal(settings.account) && !accountPattern.test(settings.account))
      problems.push({
        field: 'account',
        message: 'is an account identifier: letters, digits, `-`, `_` and `.`',
      });
    if (literal(settings.host) && !hostPattern.test(settings.host))
      problems.push({ field: 'host', message: 'must be a host name, optionally with :port' });
    if (settings.privateKey && settings.oauthToken)
      problems.push({
        field: 'oauthToken',
        message: 'is for OAuth; give a private key or a token, not both',
      });
    // the key read here, so that a pasted public key or a wrong passphrase is a 400 on save, not a
    // failed login later; the message never quotes the key
    if (
      literal(settings.privateKey) &&
      !(settings.privateKeyPassphrase as string | undefined)?.includes('${')
    ) {
      try {
        readPrivateKey(settings.privateKey, settings.privateKeyPassphrase as string | undefined);
      } catch (error) {
        problems.push({
          field: 'privateKey',
          message:
            error instanceof SnowflakeKeyError && /RSA/.test(error.message)
              ? 'is not an RSA key: Snowflake takes RSA key pairs'
              : 'is not a PEM private key, or its passphrase (privateKeyPassphrase) is wrong',
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
   * A statement proves the account answers and takes the login; the session's warehouse, database
   * and schema, null where the named one does not exist or the role may not use it, prove the rest.
   */
  async test(settings, context, timeoutMs) {
    const clear = connection(settings, context);
    const driver = await openDriver({ ...clear, max: 1, connectionTimeoutMs: timeoutMs });
    try {
      const [row] = await driver.query(contextQuery, []);
      for (const field of ['warehouse', 'database', 'schema'] as const)
        if (clear[field] && (row?.[field] === null || row?.[field] === undefined))
          throw Object.assign(new Error(`${field} missing`), { code: 'SNOWFLAKE_CONTEXT_MISSING', field });
    } catch (error) {
      // the public key's fingerprint (no secret: DESCRIBE USER shows it) names the key to compare
      if (clear.privateKey && error && typeof error === 'object') {
        const cause = (error as { cause?: unknown }).cause ?? error;
        try {
          const key = readPrivateKey(clear.privateKey, clear.privateKeyPassphrase);
          Object.assign(cause as object, { fingerprint: publicKeyFingerprint(key) });
        } catch {}
      }
      throw error;
    } finally {
      await driver.close().catch(() => undefined);
    }
  },
  describeFailure(error, settings, timeoutMs): FailureWords {
    const cause = error instanceof StatementRejectedError ? error.cause : error;
    const { code } = errorParts(cause);
    const e = cause as { status?: unknown; sqlState?: unknown; field?: unknown; fingerprint?: unknown };
    const account = String(settings.account);
    const user = String(settings.user);
    const oauth = settings.oauthTokenEnc !== undefined && settings.privateKeyEnc === undefined;
    if (code === 'SNOWFLAKE_NO_CREDENTIALS')
      return {
        problem: 'login_refused',
        message: `No private key or OAuth token is saved for user ${user}: add one.`,
        field: 'privateKey',
      };
    if (code === 'SNOWFLAKE_KEY_INVALID')
      return {
        problem: 'login_refused',
        message:
          'The private key cannot be read: paste the PEM private key (PKCS#8, RSA), and its passphrase if it is encrypted.',
        field: 'privateKey',
      };
    if (code === 'SNOWFLAKE_LOGIN_REFUSED')
      return oauth
        ? {
            problem: 'login_refused',
            message: `Snowflake account ${account} refused the OAuth token for user ${user}: it may have expired or be for another user or account; get a new one.`,
            field: 'oauthToken',
          }
        : {
            problem: 'login_refused',
            message: `Snowflake account ${account} refused the key-pair login of user ${user}: check the account identifier and user name, and that the user's RSA_PUBLIC_KEY is this key's public key (DESCRIBE USER ${user} shows RSA_PUBLIC_KEY_FP${typeof e?.fingerprint === 'string' ? `; this key's is ${e.fingerprint}` : ''}).`,
            field: 'privateKey',
          };
    if (code === 'SNOWFLAKE_FORBIDDEN')
      return {
        problem: 'permission_missing',
        message: `Snowflake account ${account} turned user ${user} away (HTTP 403): a network policy may not allow the Tessera server's address, or the user is disabled.`,
        field: 'user',
      };
    if (code === 'SNOWFLAKE_CONTEXT_MISSING' && typeof e.field === 'string') {
      const field = e.field;
      const value = String(settings[field]);
      const role = settings.role ? `role ${settings.role}` : `user ${user}'s default role`;
      return {
        problem: field === 'warehouse' ? 'permission_missing' : 'database_missing',
        message: `Snowflake has no ${field} ${value} that ${role} may use: check its name (SHOW ${field.toUpperCase()}S lists them) and the role's USAGE grant.`,
        field,
      };
    }
    // a real Snowflake may refuse the session's objects as statement errors rather than null context
    const missing = /\b(Database|Schema) '([^']*)' does not exist/i.exec(
      String((cause as Error)?.message ?? ''),
    );
    if (missing) {
      const field = missing[1]!.toLowerCase();
      return {
        problem: 'database_missing',
        message: `Snowflake has no ${field} ${String(settings[field] ?? missing[2])} that ${settings.role ? `role ${settings.role}` : `user ${user}'s default role`} may use: check its name (SHOW ${field.toUpperCase()}S lists them) and the role's USAGE grant.`,
        field,
      };
    }
    if (e?.sqlState === '57P03')
      return {
        problem: 'permission_missing',
        message: `Snowflake has no usable warehouse for user ${user}: name one in warehouse, and check the role's USAGE grant on it.`,
        field: 'warehouse',
      };
    if (e?.sqlState === '42501')
      return {
        problem: 'permission_missing',
        message: `The login worked, but ${settings.role ? `role ${settings.role}` : `user ${user}`} lacks a privilege the test needs: ask the account's administrator for access.`,
        field: 'role',
      };
    const host = settings.host ? String(settings.host) : `${account}.snowflakecomputing.com`;
    if (e?.status === 404)
      return {
        problem: 'host_unreachable',
        message: `${host} answers HTTPS but has no Snowflake SQL API (/api/v2/statements): check the account identifier${settings.host ? ' and host' : ''}.`,
        field: settings.host ? 'host' : 'account',
      };
    const [hostname, port] = host.split(':');
    const network = describeNetworkFailure(
      cause,
      'Snowflake',
      { host: hostname, port: port ?? 443 },
      443,
      timeoutMs,
    );
    if (network && !settings.host && network.field === 'host') network.field = 'account';
    if (network?.problem === 'tls_failed')
      network.message = `The HTTPS connection to ${host} failed: check its certificate (caCertificate for a private CA).`;
    if (network) return network;
    if (error instanceof StatementRejectedError)
      return {
        problem: 'unknown',
        message: `Snowflake refused the test statement: ${error.engineMessage}`,
        field: null,
      };
    return unknownFailure(cause, host);
  },
  // INFORMATION_SCHEMA.TABLE_CONSTRAINTS names a table's constraints but not their columns (Snowflake has
  // no KEY_COLUMN_USAGE; SHOW PRIMARY KEYS is a second statement), and Snowflake enforces none: columns only
  catalogue: {
    columns: `
      SELECT table_schema AS "schema", table_name AS "table", column_name AS "column",
             data_type AS "type", is_nullable = 'YES' AS "nullable"
      FROM information_schema.columns
      WHERE UPPER(table_schema) NOT IN ('INFORMATION_SCHEMA', 'PG_CATALOG')
      ORDER BY table_schema, table_name, ordinal_position`,
    keys: `
      SELECT CAST(NULL AS VARCHAR) AS "schema", CAST(NULL AS VARCHAR) AS "table", 'p' AS "kind",
             CAST(NULL AS VARCHAR) AS "columns", CAST(NULL AS VARCHAR) AS "ref_schema",
             CAST(NULL AS VARCHAR) AS "ref_table", CAST(NULL AS VARCHAR) AS "ref_columns"
      FROM information_schema.tables
      WHERE 1 = 0`,
  },
};
