/** What stopped a data source from connecting, as a form can act on it. */
export const connectionProblems = [
  'host_unreachable',
  'host_unknown',
  'timeout',
  'login_refused',
  'database_missing',
  'file_missing',
  'tls_failed',
  'permission_missing',
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

/** Stored settings, read for `host` and `port` only. */
type StoredSettingsLike = { [field: string]: unknown };

export type FailureWords = Omit<ConnectionTest, 'ok' | 'durationMs'>;

/** The error's code and message; only the code is ever shown (the message may carry settings). */
export function errorParts(error: unknown): { code: string; text: string } {
  const e = error as { code?: unknown; message?: unknown };
  return {
    code: typeof e?.code === 'string' ? e.code : '',
    text: typeof e?.message === 'string' ? e.message : '',
  };
}

/**
 * Words for what every server engine shares: the network (refused, unknown host, no answer) and
 * TLS. Built from the settings as stored (a `${NAME}` reference stays a reference, so a value from
 * an env variable is not echoed) and from the error's code only: the driver's own message may
 * carry what it was given, and a password is never named. Null: the engine's own words apply.
 */
export function describeNetworkFailure(
  error: unknown,
  engine: string,
  settings: StoredSettingsLike,
  defaultPort: number,
  timeoutMs: number,
): FailureWords | null {
  const { code, text } = errorParts(error);
  const at = `${settings.host}:${settings.port ?? defaultPort}`;
  if (code === 'ECONNREFUSED')
    return {
      problem: 'host_unreachable',
      message: `Nothing accepts connections at ${at}: check the host and port, and that ${engine} is running and reachable from the Tessera server.`,
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
  if (tlsCodes.test(code) || /\bSSL\b|TLS/i.test(text))
    return {
      problem: 'tls_failed',
      message: `The encrypted connection to ${at} failed: turn SSL off if the server does not offer it, or check its certificate.`,
      field: 'ssl',
    };
  return null;
}

/** The last resort: the code, if any, and where to look. */
export function unknownFailure(error: unknown, at: string): FailureWords {
  const { code } = errorParts(error);
  return {
    problem: 'unknown',
    message: `The connection to ${at} failed${code ? ` (${code})` : ''}: check the settings, and the server's log for the cause.`,
    field: null,
  };
}
