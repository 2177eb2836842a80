import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './types.ts';

/** Where `npm run web:build` (packages/web, Vite) writes the bundle. */
export const defaultWebDist = fileURLToPath(new URL('../../../web/dist', import.meta.url));

export interface WebAppOptions {
  /** The built bundle: `index.html` and hashed files under `assets/`. */
  distDir?: string;
  /**
   * The `frame-ancestors` sources of an embed page (`/embed/...`): the tenant's allowed origins
   * (the embed module's settings). Returns the source list, e.g. `'self' https://app.example.com`;
   * a leading `frame-ancestors` keyword is tolerated. Defaults to `'self'`.
   */
  embedFrameAncestors?: (request: FastifyRequest) => Promise<string>;
}

/**
 * The page's content security policy (CSP Level 3): everything from this origin only, so that no
 * request leaves it. Scripts have no `'unsafe-eval'`: Vega expressions run through
 * vega-interpreter. Inline styles are allowed: React Grid Layout and Vega position with them.
 */
export function contentSecurityPolicy(frameAncestors: string): string {
  return [
    "default-src 'self'",
    "img-src 'self' data: blob:",
    "style-src 'self' 'unsafe-inline'",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'self'",
    "form-action 'self'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}

/** The icon index.html links (`<link rel="icon" href="/assets/favicon-<hash>.svg">`), if any. */
export function iconHref(html: string | null): string | null {
  const link = html ? /<link\b[^>]*\brel="icon"[^>]*>/.exec(html)?.[0] : undefined;
  const href = link ? /\bhref="(\/assets\/[^"]+)"/.exec(link)?.[1] : undefined;
  return href ?? null;
}

/** The API families and operational endpoints keep their own answers (JSON 404s), never the app. */
const apiPrefixes = ['/api', '/v1', '/scim', '/data', '/healthz', '/readyz', '/metrics', '/assets'];
/** The app's own routes: the page is served whatever the request accepts. */
const appPrefixes = ['/sign-in', '/workspace', '/dashboards', '/embed', '/chat', '/data-sources'];

function under(pathname: string, prefix: string): boolean {
  return pathname === prefix || pathname.startsWith(`${prefix}/`);
}

/** Whether a GET that no route answered is a page of the app (react-router decides what it shows). */
export function isAppPage(pathname: string, accept: string | undefined): boolean {
  if (apiPrefixes.some((prefix) => under(pathname, prefix))) return false;
  if (pathname === '/' || appPrefixes.some((prefix) => under(pathname, prefix))) return true;
  return (accept ?? '').includes('text/html');
}

const missingBundlePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tessera</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; color: #1f2933; }
  code { background: #f0f4f8; padding: .1rem .3rem; border-radius: 3px; }
</style>
</head>
<body>
<h1>Tessera</h1>
<p>The web app is not built yet. Run <code>npm run web:build</code> (or <code>npm start</code>, which builds it
when it is missing), then reload this page.</p>
<p>The API works meanwhile: <a href="/api/docs">API reference</a>, <a href="/api/openapi.json">OpenAPI document</a>.</p>
</body>
</html>
`;

/**
 * The browser app (DESIGN.md "Web app and sessions"): hashed files under `/assets/` with a year's
 * immutable cache, and `index.html`, never cached, for every page of the app, so that react-router
 * answers deep links. The page goes out with its security headers; an embed page may be framed by
 * the origins the tenant allows, every other page by none.
 */
export async function registerWebApp(app: App, options: WebAppOptions = {}) {
  const distDir = options.distDir ?? defaultWebDist;
  const indexFile = path.join(distDir, 'index.html');
  const embedFrameAncestors = options.embedFrameAncestors ?? (async () => "'self'");

  await app.register(async (scope) => {
    // Bundle files are public: the page must load before anyone signs in.
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, access: { public: true } };
    });
    await scope.register(fastifyStatic, {
      root: path.join(distDir, 'assets'),
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      list: false,
      redirect: false,
      dotfiles: 'deny',
      cacheControl: false,
      // File names carry a hash of their content (Vite): a new build never reuses a name.
      setHeaders: (reply) => {
        reply.header('cache-control', 'public, max-age=31536000, immutable');
        reply.header('x-content-type-options', 'nosniff');
      },
    });
  });

  let cached: { mtimeMs: number; html: string } | null = null;
  /** index.html, re-read when a rebuild replaced it (its asset names change with every build). */
  function indexHtml(): string | null {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(indexFile).mtimeMs;
    } catch {
      return null;
    }
    if (cached?.mtimeMs !== mtimeMs) cached = { mtimeMs, html: readFileSync(indexFile, 'utf8') };
    return cached.html;
  }

  async function sendPage(request: FastifyRequest, reply: FastifyReply, pathname: string) {
    const embed = under(pathname, '/embed');
    const ancestors = embed
      ? (await embedFrameAncestors(request)).replace(/^\s*frame-ancestors\s+/i, '').trim() || "'none'"
      : "'none'";
    reply
      .code(200)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', contentSecurityPolicy(ancestors))
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('cross-origin-opener-policy', 'same-origin');
    if (!embed) reply.header('x-frame-options', 'DENY');
    return reply.send(indexHtml() ?? missingBundlePage);
  }

  // A page of the app is any path no route answers (Fastify's 404 context runs the root's hooks),
  // so the API's own 404s (problem+json, SCIM errors) stay as they are.
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404 || (request.method !== 'GET' && request.method !== 'HEAD')) return;
    const pathname = request.url.split('?')[0];
    // Browsers ask for /favicon.ico on pages that link no icon (the API reference): the app's
    // icon, whose hashed name index.html links, changes with every build.
    if (pathname === '/favicon.ico') {
      const icon = iconHref(indexHtml());
      if (icon) return reply.code(302).header('cache-control', 'no-cache').redirect(icon);
      return;
    }
    if (!isAppPage(pathname, request.headers.accept)) return;
    return sendPage(request, reply, pathname);
  });
}
