import type { DataSourceSettings } from '../db/schema.ts';

/** What stopped a data source from connecting, as a form can act on it. */
export const connectionProblems = [
  'host_unreachable',
  'host_unknown',
  'timeout',
  'login_refused',
  'database_missing',
  'file_missing',
  'tls_failed',
  'unknown',
] as const;
export type ConnectionProblem = (typeof connectionProblems)[number];

/** The outcome of a connection test: words for the user, and the settings field to look at. */
export interface ConnectionTest {
  ok: boolean;
  problem: ConnectionProblem | null;
  message: string;
  /** The data-source field the problem is about (`host`, `port`, `password`, `database`, `path`). */
  field: string | null;
  durationMs: number;
}

const tlsCodes =
  /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|CERT_|ERR_TLS_|ERR_SSL_)/;

/**
 * Words for a failed connection. Built from the settings as stored (a `${NAME}` reference stays a
 * reference, so a value from an env variable is not echoed) and from the error's code only: the
 * driver's own message may carry what it was given, and a password is never named.
 */
export function describeFailure(
  error: unknown,
  settings: DataSourceSettings,
  timeoutMs: number,
): Omit<ConnectionTest, 'ok' | 'durationMs'> {
  const e = error as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  const text = typeof e?.message === 'string' ? e.message : '';
  if (settings.type === 'duckdb') {
    return {
      problem: 'file_missing',
      message: `The DuckDB file ${settings.path} cannot be opened: check that it exists in the server's data directory and is a DuckDB database.`,
      field: 'path',
    };
  }
  const at = `${settings.host}:${settings.port ?? 5432}`;
  if (code === 'ECONNREFUSED')
    return {
      problem: 'host_unreachable',
      message: `Nothing accepts connections at ${at}: check the host and port, and that PostgreSQL is running and reachable from the Tessera server.`,
      field: 'port',
    };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return {
      problem: 'host_unknown',
      message: `The host name ${settings.host} cannot be resolved: check its spelling.`,
      field: 'host',
    };
  if (['ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'].includes(code) || /timeout/i.test(text))
    return {
      problem: 'timeout',
      message: `No answer from ${at} within ${Math.round(timeoutMs / 1000)} s: check the host and port, and that a firewall lets the Tessera server through.`,
      field: 'host',
    };
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
  if (tlsCodes.test(code) || /\bSSL\b|TLS/i.test(text))
    return {
      problem: 'tls_failed',
      message: `The encrypted connection to ${at} failed: turn SSL off if the server does not offer it, or check its certificate.`,
      field: 'ssl',
    };
  return {
    problem: 'unknown',
    message: `The connection to ${at} failed${code ? ` (${code})` : ''}: check the settings, and the server's log for the cause.`,
    field: null,
  };
}
