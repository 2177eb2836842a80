import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';

describe('GET/PUT /app-config', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const call = (method: 'GET' | 'PUT', key: string, payload?: object) =>
    server.app.inject({
      method,
      url: '/api/v1/app-config',
      headers: bearer(key),
      ...(payload ? { payload } : {}),
    });

  it('returns defaults, lets an admin set the theme, and refuses others', async () => {
    const first = await call('GET', server.adminKey);
    expect(first.json()).toMatchObject({ appTheme: null, applyThemeGlobally: false, creatorMode: null });
    const theme = { logoUrl: 'https://example.com/logo.svg', palette: { accent: { color: '#f60' } } };
    const set = await call('PUT', server.adminKey, {
      appTheme: theme,
      applyThemeGlobally: true,
      creatorMode: { workspaceTitle: 'Hub' },
    });
    expect(set.statusCode).toBe(200);
    const viewer = await userWithKey(server, 'viewer');
    const read = await call('GET', viewer.key);
    expect(read.json()).toMatchObject({
      appTheme: theme,
      applyThemeGlobally: true,
      creatorMode: { workspaceTitle: 'Hub' },
    });
    expect((await call('PUT', viewer.key, { applyThemeGlobally: false })).statusCode).toBe(403);
    expect((await call('PUT', server.adminKey, { appTheme: { logoUrl: 5 } })).statusCode).toBe(400);
    const partial = await call('PUT', server.adminKey, { applyThemeGlobally: false });
    expect(partial.json()).toMatchObject({ appTheme: theme, applyThemeGlobally: false });
  });
});
