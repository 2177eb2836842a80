import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { embedToken, publishSimpleBoard } from '../embed/test-support.ts';

/**
 * Issue 25 item 4, the reference's Embed comment operations: a conversation per embed tenant,
 * authors change only their own comments, one level of replies, resolution of threads, and
 * mentions of the tenant's own embed users only (400 naming the field otherwise, nothing written).
 */
describe('dashboard comments for embed users', () => {
  let server: TestServer;
  let publicId: string;
  let path: string;
  const tokens: Record<string, string> = {};

  const call = async (
    who: string,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ) => {
    const res = await server.app.inject({
      method,
      url: `${path}${url}`,
      headers: { authorization: `Bearer ${tokens[who]}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    return { status: res.statusCode, body: res.json() };
  };
  const commentCount = async () =>
    Number(
      (
        await server.store.db
          .selectFrom('dashboard_comments')
          .select((e) => e.fn.countAll().as('n'))
          .executeTakeFirst()
      )?.n,
    );

  beforeAll(async () => {
    server = await startTestServer();
    const deploymentId = server.demoDeploymentId;
    ({ publicId } = await publishSimpleBoard(server, deploymentId, true));
    path = `/api/v1/embed/dashboard/${publicId}/comments`;
    const session = (externalId: string, embedTenantName?: string) =>
      embedToken(server, { deploymentId, externalId, email: `${externalId}@example.com`, embedTenantName });
    tokens.alice = await session('alice', 'red');
    tokens.bob = await session('bob', 'red');
    tokens.carol = await session('carol', 'blue');
    tokens.untenanted = await session('dave');
  });
  afterAll(() => server?.close());

  let ids: Record<string, number> = {};
  let thread: number;

  it("lists the tenant's own embed users as mentionable, ordered by username", async () => {
    const res = await call('alice', 'GET', '/mentionable-users');
    expect(res.status).toBe(200);
    expect(res.body.items.map((u: { username: string }) => u.username)).toEqual(['alice', 'bob']);
    expect(res.body.items[1]).toMatchObject({ email: 'bob@example.com' });
    ids = Object.fromEntries(res.body.items.map((u: { id: number; username: string }) => [u.username, u.id]));
    const carol = await call('carol', 'GET', '/mentionable-users?search=CAR');
    expect(carol.body.items.map((u: { username: string }) => u.username)).toEqual(['carol']);
    ids.carol = carol.body.items[0].id;
    const searched = await call('alice', 'GET', '/mentionable-users?search=bob');
    expect(searched.body.items.map((u: { username: string }) => u.username)).toEqual(['bob']);
  });

  it('starts a thread with a mention, and refuses a mention outside the tenant naming the field', async () => {
    const before = await commentCount();
    const foreign = await call('alice', 'POST', '', { body: 'hi @carol', mentions: [ids.bob, ids.carol] });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors).toEqual([
      { field: 'body/mentions/1', message: expect.stringContaining(`${ids.carol}`) },
    ]);
    expect(await commentCount()).toBe(before);

    const res = await call('alice', 'POST', '', { body: 'Numbers look low, @bob?', mentions: [ids.bob] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      dashboardId: publicId,
      body: 'Numbers look low, @bob?',
      userId: ids.alice,
      isOwn: true,
      editedAt: null,
      removedAt: null,
      mentions: [ids.bob],
    });
    thread = res.body.id;
  });

  it('takes replies one level deep, and answers 404 for a parent it cannot see', async () => {
    const reply = await call('bob', 'POST', '', { body: 'Checking', parentId: thread });
    expect(reply.status).toBe(200);
    const nested = await call('alice', 'POST', '', { body: 'deeper', parentId: reply.body.id });
    expect(nested.status).toBe(400);
    expect(nested.body.errors[0].field).toBe('body/parentId');
    expect((await call('alice', 'POST', '', { body: 'x', parentId: 999999 })).status).toBe(404);
    // Another embed tenant's conversation is not this one: blue cannot reply into red's thread.
    expect((await call('carol', 'POST', '', { body: 'x', parentId: thread })).status).toBe(404);

    const list = await call('bob', 'GET', '');
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0].root).toMatchObject({ id: thread, isOwn: false, userId: ids.alice });
    expect(list.body.items[0].replies).toMatchObject([{ body: 'Checking', isOwn: true, userId: ids.bob }]);
    expect((await call('carol', 'GET', '')).body.items).toEqual([]);
  });

  it('lets only the author edit, and hides other conversations behind 404', async () => {
    expect((await call('bob', 'PATCH', `/${thread}`, { body: 'hijacked' })).status).toBe(403);
    expect((await call('carol', 'PATCH', `/${thread}`, { body: 'hijacked' })).status).toBe(404);
    const edited = await call('alice', 'PATCH', `/${thread}`, { body: 'Numbers look low', mentions: [] });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ body: 'Numbers look low', mentions: [] });
    expect(Date.parse(edited.body.editedAt)).not.toBeNaN();
  });

  it('resolves threads by their starter only, and filters them', async () => {
    expect((await call('bob', 'POST', `/${thread}/resolve`, { resolved: true })).status).toBe(403);
    const replyId = (await call('alice', 'GET', '')).body.items[0].replies[0].id;
    const onReply = await call('bob', 'POST', `/${replyId}/resolve`, { resolved: true });
    expect(onReply.status).toBe(400);
    expect(onReply.body.errors[0].field).toBe('params/commentId');

    const resolved = await call('alice', 'POST', `/${thread}/resolve`, { resolved: true });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ root: { id: thread }, resolvedBy: ids.alice });
    expect(resolved.body.replies).toHaveLength(1);
    const open = await call('alice', 'POST', '', { body: 'Another topic' });
    expect(
      (await call('alice', 'GET', '')).body.items.map((t: { root: { id: number } }) => t.root.id),
    ).toEqual([open.body.id]);
    expect(
      (await call('alice', 'GET', '?includeResolved=true')).body.items.map(
        (t: { root: { id: number } }) => t.root.id,
      ),
    ).toEqual([open.body.id, thread]);
    expect(
      (await call('alice', 'GET', '?resolvedOnly=true')).body.items.map(
        (t: { root: { id: number } }) => t.root.id,
      ),
    ).toEqual([thread]);
    const reopened = await call('alice', 'POST', `/${thread}/resolve`, { resolved: false });
    expect(reopened.body).toMatchObject({ resolvedAt: null, resolvedBy: null });
  });

  it('pages threads newest first with a cursor', async () => {
    const first = await call('bob', 'GET', '?first=1');
    expect(first.body.pageInfo.hasNextPage).toBe(true);
    const second = await call('bob', 'GET', `?first=1&after=${first.body.pageInfo.endCursor}`);
    expect(second.body.items[0].root.id).toBe(thread);
    expect(second.body.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it("deletes one's own comments: a reply keeps its place empty, a root takes its thread", async () => {
    const replyId = (await call('alice', 'GET', '')).body.items[1].replies[0].id;
    expect((await call('alice', 'DELETE', `/${replyId}`)).status).toBe(403);
    expect((await call('bob', 'DELETE', `/${replyId}`)).body).toEqual({ success: true });
    const after = (await call('alice', 'GET', '?includeResolved=true')).body.items[1];
    expect(after.replies[0]).toMatchObject({ id: replyId, body: '', mentions: [] });
    expect(after.replies[0].removedAt).not.toBeNull();
    expect((await call('bob', 'PATCH', `/${replyId}`, { body: 'back' })).status).toBe(404);

    expect((await call('alice', 'DELETE', `/${thread}`)).status).toBe(200);
    const left = (await call('alice', 'GET', '?includeResolved=true')).body.items;
    expect(left.map((t: { root: { id: number } }) => t.root.id)).not.toContain(thread);
    expect((await call('alice', 'POST', '', { body: 'late', parentId: thread })).status).toBe(404);
  });

  it('keeps every reply of parallel posters', async () => {
    const root = (await call('alice', 'POST', '', { body: 'Busy thread' })).body.id;
    const posts = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(i % 2 ? 'alice' : 'bob', 'POST', '', { body: `r${i}`, parentId: root }),
      ),
    );
    expect(posts.map((p) => p.status)).toEqual(Array(12).fill(200));
    const listed = (await call('bob', 'GET', '')).body.items.find(
      (t: { root: { id: number } }) => t.root.id === root,
    );
    expect(listed.replies.map((r: { body: string }) => r.body).sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `r${i}`).sort(),
    );
  });

  it('refuses a session without an embed tenant and every other credential with 403', async () => {
    const untenanted = await call('untenanted', 'GET', '');
    expect(untenanted.status).toBe(403);
    expect(untenanted.body.code).toBe('embed_tenant_required');
    const withKey = await server.app.inject({ method: 'GET', url: path, headers: bearer(server.adminKey) });
    expect(withKey.statusCode).toBe(403);
    const unknownBoard = await call('alice', 'GET', '').then(() =>
      server.app.inject({
        method: 'GET',
        url: '/api/v1/embed/dashboard/nope/comments',
        headers: { authorization: `Bearer ${tokens.alice}` },
      }),
    );
    expect(unknownBoard.statusCode).toBe(404);
  });
});
