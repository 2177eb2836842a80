import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 25 item 5, continued: the built-in usage model's `data_queries`, the queries the data API
 * ran for dashboards, Explore, embeds and API clients, read from the deployment logs (migration
 * 0031, modules/deployment-logs: newest lines per deployment, never SQL text or values). The line
 * says how long the query took, how many rows it answered and who asked (`details.userId`, an
 * account user; none for an embed or API token). Same tenant scoping as migration 0035's views.
 */
const tenant = "NULLIF(current_setting('tessera.usage_tenant', true), '')::integer";

const statements = `
    CREATE VIEW usage_analytics.data_queries WITH (security_barrier = true) AS
      SELECT l.id, l.deployment_id, d.name AS deployment_name, l.branch,
             u.id AS user_id, u.email AS user_email, l.message,
             (l.details->>'durationMs')::integer AS duration_ms,
             (l.details->>'rows')::integer AS row_count,
             l.level = 'error' AS failed,
             l.created_at
      FROM deployment_logs l
      JOIN deployments d ON d.id = l.deployment_id
      LEFT JOIN users u ON u.id = (l.details->>'userId')::integer AND u.tenant_id = d.tenant_id
      WHERE l.kind = 'query' AND d.tenant_id = ${tenant};
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'DROP VIEW usage_analytics.data_queries');
}
