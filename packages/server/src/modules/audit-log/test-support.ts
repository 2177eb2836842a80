import { expect } from 'vitest';
import { bearer, type TestServer } from '../../../test/harness.ts';

/** An entry as the list answers it; `before`/`after` are read as each test expects them. */
// biome-ignore lint/suspicious/noExplicitAny: the shape of before/after differs per action
export type Entry = Record<string, any>;

/** The audit entries the admin reads for `query`, newest first (audit-log tests of other families). */
export async function auditEntries(server: TestServer, query: string): Promise<Entry[]> {
  const res = await server.app.inject({
    url: `/api/v1/audit-log?${query}`,
    headers: bearer(server.adminKey),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items as Entry[];
}

/** Every stored audit row as text, and the export: where a secret must never appear. */
export async function wholeAuditLog(server: TestServer): Promise<string> {
  const exported = await server.app.inject({
    url: '/api/v1/audit-log/export',
    headers: bearer(server.adminKey),
  });
  expect(exported.statusCode).toBe(200);
  const rows = await server.store.db.selectFrom('audit_log').selectAll().execute();
  return `${exported.body}\n${JSON.stringify(rows)}`;
}
