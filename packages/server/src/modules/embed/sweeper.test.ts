import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Replica, startReplica, startTestServer, type TestServer } from '../../../test/harness.ts';
import { embedApi } from './test-support.ts';

/**
 * Spec 3: ephemeral embed users are removed once their lifetime has passed. Every replica sweeps
 * (DESIGN.md "One process, many replicas"): two application instances on one store sweeping at
 * the same moment remove each expired user exactly once, and nothing else.
 */
describe('ephemeral embed user sweeper', () => {
  let server: TestServer;
  let second: Replica;

  beforeAll(async () => {
    server = await startTestServer();
    second = await startReplica(server);
  });
  afterAll(async () => {
    await second?.close();
    await server?.close();
  });

  it('runs in every instance from ready until close', async () => {
    expect(server.services.embedSweeper.started).toBe(true);
    expect(second.services.embedSweeper.started).toBe(true);
  });

  it('removes each expired user once across two instances, with their sessions, and keeps the rest', async () => {
    const api = embedApi(server);
    const deploymentId = server.demoDeploymentId;
    for (let i = 0; i < 30; i++)
      await api.generate({ deploymentId, externalId: `gone-${i}`, embedTenantName: 'sweep' });
    await api.generate({ deploymentId, externalId: 'fresh', embedTenantName: 'sweep' });
    await api.generate({ deploymentId, externalId: 'kept', embedTenantName: 'sweep', isEphemeral: false });
    await sql`update embed_users set expires_at = now() - interval '1 minute' where external_id like 'gone-%'`.execute(
      server.store.db,
    );
    const expired = await server.store.db
      .selectFrom('embed_users')
      .select('id')
      .where('external_id', 'like', 'gone-%')
      .execute();

    const [a, b] = await Promise.all([
      server.services.embedSweeper.sweep(),
      second.services.embedSweeper.sweep(),
    ]);
    const removed = [...a.users, ...b.users].sort((x, y) => x - y);
    expect(removed).toEqual(expired.map((u) => u.id).sort((x, y) => x - y));

    const left = await server.store.db
      .selectFrom('embed_users')
      .select('external_id')
      .orderBy('external_id')
      .execute();
    expect(left.map((u) => u.external_id)).toEqual(['fresh', 'kept']);
    const sessions = await server.store.db
      .selectFrom('embed_sessions as s')
      .innerJoin('embed_users as u', 'u.id', 's.embed_user_id')
      .select('u.external_id')
      .execute();
    expect(new Set(sessions.map((s) => s.external_id))).toEqual(new Set(['fresh', 'kept']));
    expect((await server.services.embedSweeper.sweep()).users).toEqual([]);
  });

  it('removes sessions past their own and their token lifetime', async () => {
    const api = embedApi(server);
    const { sessionId } = (await api.generate({ deploymentId: server.demoDeploymentId, externalId: 'old' }))
      .body;
    await api.redeem(sessionId);
    const live = (await api.generate({ deploymentId: server.demoDeploymentId, externalId: 'old' })).body
      .sessionId;
    await sql`update embed_sessions set expires_at = now() - interval '2 days', token_expires_at = now() - interval '1 day'
      where redeemed_at is not null`.execute(server.store.db);
    const before = await server.store.db.selectFrom('embed_sessions').select('id').execute();
    const [a, b] = await Promise.all([
      server.services.embedSweeper.sweep(),
      second.services.embedSweeper.sweep(),
    ]);
    const after = await server.store.db.selectFrom('embed_sessions').select('id').execute();
    expect(a.sessions + b.sessions).toBe(before.length - after.length);
    expect(a.sessions + b.sessions).toBeGreaterThan(0);
    expect((await api.redeem(live)).status).toBe(200);
  });

  it('stops with the application', async () => {
    await second.app.close();
    expect(second.services.embedSweeper.started).toBe(false);
  });
});
