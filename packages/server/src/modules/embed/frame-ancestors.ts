/**
 * The `Content-Security-Policy` value the embed page sends (CSP Level 3 section 7.7.1,
 * `frame-ancestors`): the tenant's allowed origins, and Tessera itself (`'self'`) always, so that
 * its own pages can preview an embed. No origin listed means no other site may frame it.
 */
export function frameAncestorsPolicy(origins: readonly string[]): string {
  const sources = new Set(["'self'", ...origins.map((o) => o.trim()).filter((o) => o !== '')]);
  return `frame-ancestors ${[...sources].join(' ')}`;
}
