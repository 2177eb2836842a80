import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  bearer,
  createKey,
  startReplica,
  startTestServer,
  type TestServer,
  userWithKey,
} from '../../../test/harness.ts';
import { tokenFor } from '../data/test-support.ts';

const postgresUrl = inject('postgresUrl');

/**
 * Env variables per deployment (issue 22 item 4; reference group Env Variables): write-only values
 * encrypted at rest, and `${NAME}` in a data source's settings resolved when it connects.
 */
describe('env variables', () => {
  let server: TestServer;
  let deploymentId: number;
  beforeAll(async () => {
    server = await startTestServer();
    deploymentId = (await deployment('env vars', { type: 'duckdb', path: ':sample:' })).body.id;
  });
  afterAll(() => server?.close());

  async function send(method: string, url: string, payload?: object, headers = bearer(server.adminKey)) {
    const res = await server.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(payload ? { payload } : {}),
    });
    return { status: res.statusCode, body: res.json(), text: res.body };
  }
  const vars = (id = deploymentId) => `/api/v1/deployments/${id}/env-vars`;
  const put = (env_variables: object[], id = deploymentId, key = server.adminKey) =>
    send('PUT', vars(id), { env_variables }, bearer(key));
  const list = async (id = deploymentId) => (await send('GET', vars(id))).body;
  const deployment = (name: string, dataSource: object) =>
    send('POST', '/api/v1/deployments', { name, dataSource });
  const storedRows = (id = deploymentId) =>
    server.store.db
      .selectFrom('env_variables')
      .select(['name', 'value_enc'])
      .where('deployment_id', '=', id)
      .orderBy('name')
      .execute();

  it('sets, updates, keeps and removes variables by name; every read shows [ENCRYPTED]', async () => {
    const set = await put([
      { name: 'WAREHOUSE_HOST', value: 'db.internal' },
      { name: 'REPORTING_PASSWORD', value: 'hunter2' },
    ]);
    expect(set.status).toBe(200);
    // One request's variables are written in name order (see the service), and listed in write order.
    expect(set.body.items).toEqual([
      { name: 'REPORTING_PASSWORD', value: '[ENCRYPTED]' },
      { name: 'WAREHOUSE_HOST', value: '[ENCRYPTED]' },
    ]);
    expect(set.body.data).toEqual(set.body.items);
    // Not sent: kept. Sent: replaced. Empty: removed.
    await put([{ name: 'WAREHOUSE_HOST', value: 'db2.internal' }]);
    expect((await list()).items.map((i: { name: string }) => i.name)).toEqual([
      'REPORTING_PASSWORD',
      'WAREHOUSE_HOST',
    ]);
    expect((await put([{ name: 'REPORTING_PASSWORD', value: '' }])).status).toBe(200);
    expect((await list()).items).toEqual([{ name: 'WAREHOUSE_HOST', value: '[ENCRYPTED]' }]);
    await put([{ name: 'WAREHOUSE_HOST', value: '' }]);
    expect((await list()).items).toEqual([]);
  });

  it('pages with first and after', async () => {
    const other = (await deployment('paged', { type: 'duckdb', path: ':sample:' })).body.id;
    await put(
      ['A', 'B', 'C'].map((name) => ({ name, value: name.toLowerCase() })),
      other,
    );
    const first = (await send('GET', `${vars(other)}?first=2`)).body;
    expect(first.items.map((i: { name: string }) => i.name)).toEqual(['A', 'B']);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const next = (await send('GET', `${vars(other)}?first=2&after=${first.pageInfo.endCursor}`)).body;
    expect(next.items.map((i: { name: string }) => i.name)).toEqual(['C']);
    expect(next.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it('never returns, stores or echoes a value in clear', async () => {
    const secret = `s3cret-${Math.random().toString(36).slice(2)}`;
    const responses = [
      await put([{ name: 'API_TOKEN', value: secret }]),
      await send('GET', vars()),
      // Errors about other items of the same request do not echo it either.
      await put([
        { name: 'API_TOKEN', value: secret },
        { name: 'OTHER', value: '[ENCRYPTED]' },
      ]),
      await put([
        { name: 'API_TOKEN', value: secret },
        { name: 'API_TOKEN', value: `${secret}2` },
      ]),
      await put([{ name: 'bad name', value: secret }]),
      await put([{ name: 'API_TOKEN', value: `${secret}\u0000` }]),
      await send('GET', `/api/v1/deployments/${deploymentId}`),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 400, 400, 400, 400, 200]);
    for (const r of responses) expect(r.text).not.toContain(secret);
    const rows = await storedRows();
    expect(rows.map((r) => r.name)).toEqual(['API_TOKEN']);
    expect(rows[0]!.value_enc).not.toContain(secret);
    await put([{ name: 'API_TOKEN', value: '' }]);
  });

  it('refuses bad input with 400 naming the field, and changes nothing', async () => {
    await put([{ name: 'KEEP', value: 'original' }]);
    const before = await storedRows();
    const cases: Array<[object, string[]]> = [
      [[{ name: '1STARTS_WITH_DIGIT', value: 'x' }], ['body/env_variables/0/name']],
      [[{ name: 'HAS-DASH', value: 'x' }], ['body/env_variables/0/name']],
      [
        [
          { name: 'KEEP', value: 'changed' },
          { name: 'MASKED', value: '[ENCRYPTED]' },
        ],
        ['body/env_variables/1/value'],
      ],
      [
        [
          { name: 'KEEP', value: 'a' },
          { name: 'KEEP', value: 'b' },
        ],
        ['body/env_variables/1/name'],
      ],
      [[{ name: 'KEEP' }], ['body/env_variables/0/value']],
      [[{ name: 'KEEP', value: 5 }], ['body/env_variables/0/value']],
    ];
    for (const [items, fields] of cases) {
      const bad = await put(items as object[]);
      expect(bad.status, JSON.stringify(items)).toBe(400);
      expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(fields);
    }
    const missing = await send('PUT', vars(), {});
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { field: string }) => e.field)).toEqual(['body/env_variables']);
    expect(await storedRows()).toEqual(before);
    await put([{ name: 'KEEP', value: '' }]);
  });

  it('lets developers read names and only admins write; 401 without a credential, 403 out of scope', async () => {
    const viewer = await userWithKey(server, 'viewer');
    const developer = await userWithKey(server, 'developer');
    expect((await send('GET', vars(), undefined, bearer(viewer.key))).status).toBe(403);
    expect((await put([{ name: 'X', value: 'v' }], deploymentId, viewer.key)).status).toBe(403);
    expect((await send('GET', vars(), undefined, bearer(developer.key))).status).toBe(200);
    expect((await put([{ name: 'X', value: 'v' }], deploymentId, developer.key)).status).toBe(403);
    expect((await send('GET', vars(), undefined, {} as ReturnType<typeof bearer>)).status).toBe(401);
    expect((await send('PUT', vars(), { env_variables: [] }, {} as ReturnType<typeof bearer>)).status).toBe(
      401,
    );
    const scoped = await createKey(server, { name: 'scoped', deploymentIds: [server.demoDeploymentId] });
    expect((await put([{ name: 'X', value: 'v' }], deploymentId, scoped.key)).status).toBe(403);
    expect((await send('GET', vars(2147483647))).status).toBe(404);
    expect(await storedRows()).toEqual([]);
  });

  it('keeps one row per name under concurrent writes', async () => {
    const writes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        put([
          { name: 'RACED', value: `value ${i}` },
          { name: 'ALSO_RACED', value: `other ${i}` },
        ]),
      ),
    );
    expect(writes.map((w) => w.status)).toEqual(Array(8).fill(200));
    expect((await storedRows()).map((r) => r.name)).toEqual(['ALSO_RACED', 'RACED']);
    await put([
      { name: 'RACED', value: '' },
      { name: 'ALSO_RACED', value: '' },
    ]);
  });

  describe.skipIf(!postgresUrl)(`\${NAME} in a PostgreSQL data source`, () => {
    const url = new URL(postgresUrl ?? 'postgres://127.0.0.1/test');
    const database = decodeURIComponent(url.pathname.slice(1)) || 'postgres';
    const user = decodeURIComponent(url.username) || 'postgres';
    const postgres = {
      type: 'postgres',
      host: `\${PG_HOST}`,
      port: Number(url.port || 5432),
      database: `\${PG_DATABASE}`,
      user: `\${PG_USER}`,
      password: `\${PG_PASSWORD}`,
    };

    it('is refused with 400 naming the variable when the deployment lacks it, changing nothing', async () => {
      const countBefore = (await send('GET', '/api/v1/deployments')).body.count;
      const created = await deployment('unknown refs', postgres);
      expect(created.status).toBe(400);
      expect(created.text).toContain('PG_HOST');
      expect(created.body.errors.map((e: { field: string }) => e.field)).toEqual([
        'body/dataSource/host',
        'body/dataSource/database',
        'body/dataSource/user',
        'body/dataSource/password',
      ]);
      expect((await send('GET', '/api/v1/deployments')).body.count).toBe(countBefore);

      await put([{ name: 'PG_HOST', value: url.hostname }]);
      const before = (await send('GET', `/api/v1/deployments/${deploymentId}`)).body;
      const updated = await send('PUT', `/api/v1/deployments/${deploymentId}`, { dataSource: postgres });
      expect(updated.status).toBe(400);
      expect(updated.body.errors).toEqual([
        expect.objectContaining({
          field: 'body/dataSource/database',
          message: expect.stringContaining('PG_DATABASE'),
        }),
        expect.objectContaining({
          field: 'body/dataSource/user',
          message: expect.stringContaining('PG_USER'),
        }),
        expect.objectContaining({
          field: 'body/dataSource/password',
          message: expect.stringContaining('PG_PASSWORD'),
        }),
      ]);
      expect((await send('GET', `/api/v1/deployments/${deploymentId}`)).body).toEqual(before);
      await put([{ name: 'PG_HOST', value: '' }]);
    });

    it('connects with the variables’ values, reconnects when one changes, and keeps a used one', async () => {
      const id = (await deployment('resolved', { type: 'duckdb', path: ':sample:' })).body.id as number;
      const password = decodeURIComponent(url.password) || 'not needed with trust authentication';
      await put(
        [
          { name: 'PG_HOST', value: url.hostname },
          { name: 'PG_DATABASE', value: 'no_such_database_here' },
          { name: 'PG_USER', value: user },
          { name: 'PG_PASSWORD', value: password },
        ],
        id,
      );
      const saved = await send('PUT', `/api/v1/deployments/${id}`, { dataSource: postgres });
      expect(saved.status, saved.text).toBe(200);
      // The settings read back as written: references, never the values.
      expect(saved.body.dataSource).toEqual({ ...postgres, password: undefined, hasPassword: true });
      expect(saved.text).not.toContain(password);

      await server.store.db
        .insertInto('model_files')
        .values({
          deployment_id: id,
          branch: 'main',
          path: 'model/probe.yml',
          content: [
            'cubes:',
            '  - name: probe',
            '    sql: SELECT current_database() AS db, current_user AS usr',
            '    measures:',
            '      - name: count',
            '        type: count',
            '    dimensions:',
            '      - name: db',
            '        sql: db',
            '        type: string',
            '        primary_key: true',
            '      - name: usr',
            '        sql: usr',
            '        type: string',
          ].join('\n'),
        })
        .execute();
      const token = await tokenFor(server, id);
      const load = () =>
        server.app.inject({
          method: 'POST',
          url: `/data/${id}/cubejs-api/v1/load`,
          headers: { authorization: token },
          payload: { query: { dimensions: ['probe.db', 'probe.usr'] } },
        });
      // PG_DATABASE names a database that does not exist: the connection is refused, not a 5xx crash.
      const wrong = await load();
      expect([400, 503], wrong.body).toContain(wrong.statusCode);
      expect(wrong.body).not.toContain(password);

      await put([{ name: 'PG_DATABASE', value: database }], id);
      const right = await load();
      expect(right.statusCode, right.body).toBe(200);
      expect(right.json().data).toEqual([{ 'probe.db': database, 'probe.usr': user }]);

      // A variable the data source uses cannot be removed out from under it.
      const removed = await put([{ name: 'PG_DATABASE', value: '' }], id);
      expect(removed.status).toBe(400);
      expect(removed.body.errors).toEqual([
        expect.objectContaining({
          field: 'body/env_variables/0/value',
          message: expect.stringContaining('PG_DATABASE'),
        }),
      ]);
      expect((await list(id)).items).toHaveLength(4);

      // Another replica sharing the store hears the change and reconnects with the new value.
      const replica = await startReplica(server, { listen: true });
      try {
        // Each call asks a query not asked before, so that no cached result answers for the engine.
        const onReplica = (dimensions: string[]) =>
          replica.app.inject({
            method: 'POST',
            url: `/data/${id}/cubejs-api/v1/load`,
            headers: { authorization: token },
            payload: { query: { dimensions } },
          });
        expect((await onReplica(['probe.db'])).json().data).toEqual([{ 'probe.db': database }]);
        const heard = new Promise<void>((resolve) => replica.services.bus.subscribe('deployments', resolve));
        await put([{ name: 'PG_DATABASE', value: 'no_such_database_here' }], id);
        await heard;
        const refused = await onReplica(['probe.usr']);
        expect([400, 503], refused.body).toContain(refused.statusCode);
      } finally {
        await replica.close();
      }

      // A variable gone from under the data source (here deleted in the store directly, as the API
      // refuses to) is the caller's to fix: 400 naming it, not a 5xx.
      await put([{ name: 'PG_DATABASE', value: database }], id);
      const gone = new Promise<void>((resolve) => server.services.bus.subscribe('deployments', resolve));
      await server.store.db
        .deleteFrom('env_variables')
        .where('deployment_id', '=', id)
        .where('name', '=', 'PG_USER')
        .execute();
      await gone;
      const unknown = await server.app.inject({
        method: 'POST',
        url: `/data/${id}/cubejs-api/v1/load`,
        headers: { authorization: token },
        payload: { query: { dimensions: ['probe.usr'], measures: ['probe.count'] } },
      });
      expect(unknown.statusCode, unknown.body).toBe(400);
      expect(unknown.body).toContain('PG_USER');
      expect(unknown.body).not.toContain(password);
    });
  });
});
