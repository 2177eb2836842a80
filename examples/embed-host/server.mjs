/**
 * An example host application that embeds a Tessera dashboard, as a customer's own web app would.
 *
 * Per page view it asks Tessera for an embed session on the server side, with an API key that never
 * reaches the browser (spec 4.3, `POST /api/v1/embed/generate-session`), and serves a page whose
 * iframe opens `/embed/dashboard/{publicId}?session=...`. The embed page redeems the session once
 * and draws the dashboard under the signed-in user's attributes, so row-level access policies apply.
 *
 * Plain Node (20+), no dependencies:
 *
 *   TESSERA_URL=http://127.0.0.1:3000 TESSERA_API_KEY=tsk_... DEPLOYMENT_ID=1 DASHBOARD_ID=abc123 \
 *     node examples/embed-host/server.mjs
 *
 * Optional: PORT (default 8080), HOST (default localhost), EMBED_TENANT (an embed tenant name).
 */
import { createServer } from 'node:http';

const config = {
  tesseraUrl: required('TESSERA_URL').replace(/\/+$/, ''),
  apiKey: required('TESSERA_API_KEY'),
  deploymentId: Number(required('DEPLOYMENT_ID')),
  dashboardId: required('DASHBOARD_ID'),
  embedTenant: process.env.EMBED_TENANT || undefined,
  host: process.env.HOST || 'localhost',
  port: Number(process.env.PORT ?? 8080),
};
if (!Number.isInteger(config.deploymentId) || config.deploymentId < 1)
  fail('DEPLOYMENT_ID must be a positive integer');

/**
 * The demo's "signed-in" users. A real application takes the user from its own sign-in; what matters
 * is that it decides the attributes on its server, where the browser cannot change them. Tessera's
 * demo model keeps a user whose `country` attribute is set to that country's customers, orders and
 * order lines only: every figure of the dashboard is that country's.
 */
const users = {
  alice: { externalId: 'alice', email: 'alice@example.com', displayName: 'Alice', country: 'DE' },
  bob: { externalId: 'bob', email: 'bob@example.com', displayName: 'Bob', country: 'US' },
};

/** Creates a one-time embed session for `user` (expires after 5 minutes unless redeemed). */
async function createEmbedSession(user) {
  const response = await fetch(`${config.tesseraUrl}/api/v1/embed/generate-session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      deploymentId: config.deploymentId,
      publicDashboardId: config.dashboardId,
      externalId: user.externalId,
      email: user.email,
      userProfile: { displayName: user.displayName },
      ...(config.embedTenant ? { embedTenantName: config.embedTenant } : {}),
      userAttributeDefinitions: [{ name: 'country', displayName: 'Country' }],
      userAttributes: [{ name: 'country', value: user.country }],
      embedTheme: { primaryColor: '#0f766e', font: 'Inter' },
    }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = body.detail ?? body.title ?? response.statusText;
    throw new Error(`Tessera answered ${response.status} to generate-session: ${detail}`);
  }
  return body.sessionId;
}

const server = createServer(async (request, response) => {
  const url = new URL(request.url ?? '/', `http://${request.headers.host ?? 'localhost'}`);
  if (url.pathname === '/healthz') return send(response, 200, 'text/plain', 'ok\n');
  if (url.pathname !== '/') return send(response, 404, 'text/plain', 'Not found\n');
  const name = url.searchParams.get('user');
  if (name === null) return send(response, 200, 'text/html', signInPage());
  const user = Object.hasOwn(users, name) ? users[name] : undefined;
  if (!user)
    return send(
      response,
      404,
      'text/html',
      layout('Unknown user', `<p>No demo user ${escapeHtml(name)}.</p>`),
    );
  try {
    const sessionId = await createEmbedSession(user);
    const src = `${config.tesseraUrl}/embed/dashboard/${encodeURIComponent(config.dashboardId)}?session=${encodeURIComponent(sessionId)}`;
    return send(response, 200, 'text/html', dashboardPage(name, user, src));
  } catch (error) {
    console.error(error);
    return send(
      response,
      502,
      'text/html',
      layout('Embedding failed', `<p>${escapeHtml(error.message)}</p>`),
    );
  }
});

server.listen(config.port, config.host, () => {
  const { port } = server.address();
  console.log(`Embed host listening on http://${config.host}:${port}/ (Tessera at ${config.tesseraUrl})`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));

function send(response, status, type, body) {
  response.writeHead(status, {
    'content-type': `${type}; charset=utf-8`,
    // Each page carries a single-use session: never cache it, never send its address onwards.
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
  });
  response.end(body);
}

function signInPage() {
  const links = Object.entries(users)
    .map(
      ([name, u]) =>
        `<li><a href="/?user=${encodeURIComponent(name)}">Sign in as ${escapeHtml(u.displayName)}</a> (country ${escapeHtml(u.country)})</li>`,
    )
    .join('');
  return layout(
    'Acme portal',
    `<p>Pick a demo user; each sees the embedded dashboard under their own attributes.</p><ul>${links}</ul>`,
  );
}

function dashboardPage(name, user, src) {
  return layout(
    `Acme portal: ${user.displayName}`,
    `<p>Signed in as <strong id="user">${escapeHtml(user.displayName)}</strong> (country ${escapeHtml(user.country)}). <a href="/">Sign out</a></p>
<iframe id="tessera-embed" title="Analytics" src="${escapeHtml(src)}" data-user="${escapeHtml(name)}"></iframe>
<script>
  // The embed page reports its height so the frame fits the dashboard without a second scrollbar.
  const frame = document.getElementById('tessera-embed');
  const origin = ${JSON.stringify(new URL(config.tesseraUrl).origin)};
  addEventListener('message', (event) => {
    if (event.origin !== origin || event.source !== frame.contentWindow) return;
    const data = event.data;
    if (data && data.type === 'tessera:embed' && typeof data.height === 'number')
      frame.style.height = Math.max(200, Math.ceil(data.height)) + 'px';
  });
</script>`,
  );
}

function layout(title, body) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0; color: #1f2933; background: #f5f7fa; }
  header { background: #243b53; color: #fff; padding: .75rem 1.5rem; font-weight: 600; }
  main { padding: 1rem 1.5rem; }
  iframe { width: 100%; height: 900px; border: 1px solid #d9e2ec; border-radius: 6px; background: #fff; }
</style>
</head>
<body>
<header>${escapeHtml(title)}</header>
<main>${body}</main>
</body>
</html>
`;
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function required(name) {
  const value = process.env[name];
  if (!value) fail(`Set ${name} (see examples/embed-host/README.md)`);
  return value;
}

function fail(message) {
  console.error(message);
  process.exit(1);
}
