import path from 'node:path';

/**
 * Runtime configuration, read once from environment variables.
 * Every variable is documented, with its default, in the README ("Configuration").
 */
export interface Config {
  /** `development` (default) allows plain HTTP; `production` requires TLS (spec section 8). */
  env: 'development' | 'production';
  host: string;
  port: number;
  /** Where the embedded store, generated secrets and sample data live. */
  dataDir: string;
  /** PostgreSQL connection string; when unset the embedded PGlite store under dataDir is used. */
  databaseUrl: string | null;
  /** Base domain for tenant subdomains (`{tenant}.{domain}`); null serves the single tenant on any host. */
  domain: string | null;
  /** Public URL printed at start and used to build deployment URLs. */
  publicUrl: string | null;
  /** Bootstrap admin API key (automation, containers). */
  adminApiKey: string | null;
  /** TESSERA_ADMIN_EMAIL: the first admin's address (else they are asked for one on first sign-in). */
  adminEmail: string | null;
  /** Key for secrets at rest; generated into dataDir when unset. */
  secretKey: string | null;
  tlsCertFile: string | null;
  tlsKeyFile: string | null;
  /** Trust X-Forwarded-* headers from a proxy that terminated TLS. */
  trustProxy: boolean;
  /** Maximum JSON body size in bytes. */
  bodyLimit: number;
  /** Requests per minute per credential (or per client address when unauthenticated); 0 disables. */
  rateLimitPerMinute: number;
  logLevel: string;
  /** Skip creating the demo deployment and sample data at first start. */
  skipDemo: boolean;
  /** A browser session ends after this many minutes without a request (TESSERA_SESSION_IDLE_MINUTES). */
  sessionIdleMinutes: number;
  /** A browser session ends this many hours after sign-in, however active (TESSERA_SESSION_MAX_HOURS). */
  sessionMaxHours: number;
  /**
   * TESSERA_MODEL_DIR: a directory of data-model YAML (`*.yml`/`*.yaml`, recursively). When set,
   * each start replaces the demo deployment's `main` branch files with it (paths relative to the
   * directory), and in development the server watches it and reloads on every change.
   */
  modelDir: string | null;
  /**
   * REDIS_URL (`redis://host:port/db`): replicas share chat runs through it (lines fanned out to
   * followers on any replica, aborts reaching the replica running the turn) and data-API results
   * (a result cache, and each query run once across replicas: modules/data/shared-cache.ts); null:
   * one process, or replicas that follow each other through the store.
   */
  redisUrl: string | null;
  /**
   * TESSERA_REDIS_PREFIX (default `tessera`): what every Redis key and channel of this
   * installation starts with, so that installations sharing one Redis never read each other's
   * results or chat streams (their ids repeat). Replicas of one installation share it.
   */
  redisPrefix: string;
  /**
   * TESSERA_SMTP_URL: where notification email is sent (`smtp://host:port`,
   * `smtps://user:pass@host:port` for TLS); null: email deliveries fail visibly in the run log.
   */
  smtpUrl: string | null;
  /** TESSERA_SMTP_FROM: the From address of notification email. */
  smtpFrom: string;
  /**
   * TESSERA_AWS_SERVER_CREDENTIALS: whether an Athena data source may query as this server's own
   * AWS identity (its environment, shared config, EKS web identity, ECS task role or EC2 instance
   * profile) instead of an access key of its own. Off by default: whoever may edit a data source
   * would otherwise borrow the server's role.
   */
  awsServerCredentials: boolean;
  /**
   * TESSERA_REGIONS: the regions this server serves (reference group Regions), comma-separated
   * `name` or `name:Title` (`eu-west:Europe West,us-east`); default one region, `local`.
   */
  regions: RegionConfig[];
  /** The pre-aggregation refresher (modules/data/pre-aggregations/refresher.ts). */
  preAggregations: {
    /**
     * TESSERA_PRE_AGGREGATIONS_REFRESH_MS: how often each replica looks for rollups whose refresh
     * key changed and rebuilds them (default 60 s); 0: no background refresh.
     */
    refreshMs: number;
  };
  /**
   * Sign-in with an external OpenID provider (modules/oidc/external), for the web app and as
   * `Authorization: Bearer <access token>` on the management API; null when TESSERA_OIDC_ISSUER
   * is unset.
   */
  oidc: OidcSignInConfig | null;
  /** The notification scheduler (modules/notifications/scheduler.ts). */
  scheduler: {
    /** TESSERA_SCHEDULER_DISABLED: this replica neither plans nor delivers notifications nor exports. */
    disabled: boolean;
    /** TESSERA_SCHEDULER_INTERVAL_MS: how often it looks for due notifications (default 15 s). */
    intervalMs: number;
    /** TESSERA_SCHEDULER_CONCURRENCY: runs rendered and delivered at once by this replica. */
    concurrency: number;
  };
}

export interface OidcSignInConfig {
  /** TESSERA_OIDC_ISSUER: the provider's issuer URL; its discovery document is read from it. */
  issuer: string;
  /** TESSERA_OIDC_CLIENT_ID and TESSERA_OIDC_CLIENT_SECRET: this server's client at the provider. */
  clientId: string;
  clientSecret: string | null;
  /** TESSERA_OIDC_SCOPES: asked at sign-in (default `openid email profile`). */
  scopes: string;
  /** TESSERA_OIDC_GROUPS_CLAIM: the claim listing the user's group names (default `groups`); empty: none. */
  groupsClaim: string | null;
  /** TESSERA_OIDC_DEFAULT_ROLE: the role of a user created at first sign-in (default `viewer`). */
  defaultRole: 'admin' | 'developer' | 'viewer';
  /** TESSERA_OIDC_AUDIENCE: the `aud` a JWT access token must carry (default the client id). */
  audience: string;
  /** TESSERA_OIDC_NAME: the provider's name on the sign-in page (default `single sign-on`). */
  displayName: string;
}

/** The external OpenID provider's settings, or null when TESSERA_OIDC_ISSUER is unset. */
export function oidcFrom(env: NodeJS.ProcessEnv): OidcSignInConfig | null {
  const issuer = nonEmpty(env.TESSERA_OIDC_ISSUER);
  if (issuer === null) return null;
  if (!/^https?:\/\//.test(issuer))
    throw new Error('Configuration error: TESSERA_OIDC_ISSUER must be an http(s) URL');
  const clientId = nonEmpty(env.TESSERA_OIDC_CLIENT_ID);
  if (clientId === null)
    throw new Error('Configuration error: TESSERA_OIDC_CLIENT_ID is required with TESSERA_OIDC_ISSUER');
  const role = env.TESSERA_OIDC_DEFAULT_ROLE || 'viewer';
  if (role !== 'admin' && role !== 'developer' && role !== 'viewer')
    throw new Error('Configuration error: TESSERA_OIDC_DEFAULT_ROLE must be admin, developer or viewer');
  return {
    issuer,
    clientId,
    clientSecret: nonEmpty(env.TESSERA_OIDC_CLIENT_SECRET),
    scopes: env.TESSERA_OIDC_SCOPES || 'openid email profile',
    groupsClaim:
      env.TESSERA_OIDC_GROUPS_CLAIM === undefined ? 'groups' : nonEmpty(env.TESSERA_OIDC_GROUPS_CLAIM),
    defaultRole: role,
    audience: env.TESSERA_OIDC_AUDIENCE || clientId,
    displayName: env.TESSERA_OIDC_NAME || 'single sign-on',
  };
}

export interface RegionConfig {
  name: string;
  title: string;
}

const regionName = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** `name[:Title]` entries, comma-separated; a name is a DNS label, as it appears in data URLs. */
export function regionsFrom(value: string | undefined): RegionConfig[] {
  if (value === undefined || value.trim() === '') return [{ name: 'local', title: 'Local' }];
  const regions = value.split(',').map((entry) => {
    const [rawName = '', ...title] = entry.split(':');
    const name = rawName.trim();
    if (!regionName.test(name)) {
      throw new Error(
        `Configuration error: TESSERA_REGIONS entry "${entry.trim()}" must start with a region name of lowercase letters, digits and hyphens`,
      );
    }
    return { name, title: title.join(':').trim() || name };
  });
  const names = regions.map((r) => r.name);
  const repeated = names.find((n, i) => names.indexOf(n) !== i);
  if (repeated) throw new Error(`Configuration error: TESSERA_REGIONS names region "${repeated}" twice`);
  return regions;
}

function intFrom(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new Error(`Configuration error: ${name} must be a non-negative integer, got "${value}"`);
  }
  return n;
}

function positive(name: string, n: number): number {
  if (n === 0) throw new Error(`Configuration error: ${name} must be at least 1`);
  return n;
}

function boolFrom(value: string | undefined): boolean {
  return value !== undefined && ['1', 'true', 'yes', 'on'].includes(value.toLowerCase());
}

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const mode = env.TESSERA_ENV ?? (env.NODE_ENV === 'production' ? 'production' : 'development');
  if (mode !== 'development' && mode !== 'production') {
    throw new Error(`Configuration error: TESSERA_ENV must be "development" or "production", got "${mode}"`);
  }
  return {
    env: mode,
    host: env.HOST || '127.0.0.1',
    port: intFrom('PORT', env.PORT, 4000),
    dataDir: path.resolve(env.TESSERA_DATA_DIR || '.tessera'),
    databaseUrl: nonEmpty(env.DATABASE_URL),
    domain: nonEmpty(env.TESSERA_DOMAIN),
    publicUrl: nonEmpty(env.TESSERA_PUBLIC_URL),
    adminApiKey: nonEmpty(env.TESSERA_ADMIN_API_KEY),
    adminEmail: nonEmpty(env.TESSERA_ADMIN_EMAIL),
    secretKey: nonEmpty(env.TESSERA_SECRET_KEY),
    tlsCertFile: nonEmpty(env.TESSERA_TLS_CERT),
    tlsKeyFile: nonEmpty(env.TESSERA_TLS_KEY),
    trustProxy: boolFrom(env.TESSERA_TRUST_PROXY),
    bodyLimit: intFrom('TESSERA_BODY_LIMIT', env.TESSERA_BODY_LIMIT, 1024 * 1024),
    rateLimitPerMinute: intFrom('TESSERA_RATE_LIMIT', env.TESSERA_RATE_LIMIT, 1200),
    logLevel: env.LOG_LEVEL || 'info',
    skipDemo: boolFrom(env.TESSERA_SKIP_DEMO),
    sessionIdleMinutes: positive(
      'TESSERA_SESSION_IDLE_MINUTES',
      intFrom('TESSERA_SESSION_IDLE_MINUTES', env.TESSERA_SESSION_IDLE_MINUTES, 12 * 60),
    ),
    sessionMaxHours: positive(
      'TESSERA_SESSION_MAX_HOURS',
      intFrom('TESSERA_SESSION_MAX_HOURS', env.TESSERA_SESSION_MAX_HOURS, 7 * 24),
    ),
    modelDir: env.TESSERA_MODEL_DIR ? path.resolve(env.TESSERA_MODEL_DIR) : null,
    redisUrl: nonEmpty(env.REDIS_URL),
    redisPrefix: redisPrefixFrom(env.TESSERA_REDIS_PREFIX),
    smtpUrl: nonEmpty(env.TESSERA_SMTP_URL),
    smtpFrom: env.TESSERA_SMTP_FROM || 'Tessera <notifications@localhost>',
    awsServerCredentials: boolFrom(env.TESSERA_AWS_SERVER_CREDENTIALS),
    regions: regionsFrom(env.TESSERA_REGIONS),
    preAggregations: {
      refreshMs: intFrom(
        'TESSERA_PRE_AGGREGATIONS_REFRESH_MS',
        env.TESSERA_PRE_AGGREGATIONS_REFRESH_MS,
        60_000,
      ),
    },
    oidc: oidcFrom(env),
    scheduler: {
      disabled: boolFrom(env.TESSERA_SCHEDULER_DISABLED),
      intervalMs: Math.max(
        1000,
        intFrom('TESSERA_SCHEDULER_INTERVAL_MS', env.TESSERA_SCHEDULER_INTERVAL_MS, 15_000),
      ),
      concurrency: Math.max(
        1,
        intFrom('TESSERA_SCHEDULER_CONCURRENCY', env.TESSERA_SCHEDULER_CONCURRENCY, 8),
      ),
    },
  };
}

function redisPrefixFrom(value: string | undefined): string {
  if (!value) return 'tessera';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(value))
    throw new Error(
      `Configuration error: TESSERA_REDIS_PREFIX must be 1 to 64 letters, digits, "_", "." or "-", got "${value}"`,
    );
  return value;
}
