import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { contentClient, newDeployment } from '../workspace/test-client.ts';

/**
 * A client pages through 1,000 workbooks with first/after while others are created and
 * deleted, and sees every workbook that existed throughout exactly once (keyset on the id).
 */
describe('paging through 1,000 workbooks while others change them', () => {
  let server: TestServer;
  let deploymentId: number;
  beforeAll(async () => {
    server = await startTestServer();
    deploymentId = await newDeployment(server, 'paging');
  });
  afterAll(() => server?.close());

  it('sees every workbook that existed throughout exactly once', async () => {
    const api = contentClient(server, deploymentId);
    // Seed through the store in one statement: 1,000 HTTP creates would only test patience.
    await sql`insert into workbooks (deployment_id, name, user_id, created_by)
      select ${deploymentId}, 'seed ' || n, ${server.adminUserId}, ${server.adminUserId} from generate_series(1, 1000) n`.execute(
      server.store.db,
    );
    const all = await server.store.db
      .selectFrom('workbooks')
      .select('id')
      .where('deployment_id', '=', deploymentId)
      .execute();
    const ids = all.map((r) => r.id).sort((a, b) => a - b);
    const doomed = new Set(ids.filter((_, i) => i % 7 === 3));
    const stable = ids.filter((id) => !doomed.has(id));

    const seen: number[] = [];
    let after: string | null = null;
    let round = 0;
    const queue = [...doomed];
    for (;;) {
      const page = await api.ok('GET', `/workbooks?first=37${after ? `&after=${after}` : ''}`);
      seen.push(...page.items.map((w: { id: number }) => w.id));
      // Between pages, other clients create new workbooks and delete old ones (some already seen).
      await api.workbook(`new ${round}`);
      for (const id of queue.splice(0, 6)) await api.ok('DELETE', `/workbooks/${id}`);
      round++;
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    const seenSet = new Set(seen);
    expect(stable.filter((id) => !seenSet.has(id))).toEqual([]);
    expect(round).toBeGreaterThan(25);
  });
});
