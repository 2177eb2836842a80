/**
 * What an audit entry never holds (issue 22 item 5): credentials and secrets. Services record the
 * public shapes of what they changed, which carry none; this is the one net under them, so that a
 * shape that one day grows a secret still never writes it into the log. A key is secret when its
 * name ends in one of these words (`password`, `dbPassword`, `clientSecret`, `serviceApiToken`,
 * `key_hash`, `value_enc`, `key`, `apiKey`, `privateKey`, `privateKeyPassphrase`); its value is replaced, not dropped, so
 * the entry still shows that it changed. Flags about a secret (`hasPassword`) are no secret.
 */
const secretKey = /(password|passwd|passphrase|secret|token|hash|_enc|^key|apikey|privatekey|credentials?)$/i;

export const redacted = '[REDACTED]';

export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value instanceof Date) return value.toISOString();
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (item === undefined) continue;
    const secret = secretKey.test(key) && !/^has[A-Z]/.test(key);
    out[key] = secret && item !== null ? redacted : redactSecrets(item);
  }
  return out;
}
