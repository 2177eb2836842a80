import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Pre-aggregations (issue 15 item 5; Cube's rollups). `pre_aggregation_tables` points each
 * rollup partition at the versioned table that serves it: a refresh builds a new table, then
 * moves this pointer in one UPDATE, so a query never reads a half-built table, and every replica
 * reads the same pointer. `pre_aggregation_leases` holds one row per deployment: the replica that
 * holds an unexpired lease refreshes that deployment's rollups, the others skip it (DESIGN.md
 * "One process, many replicas": coordination through the database, no leader).
 */
const statements = `
    CREATE TABLE pre_aggregation_tables (
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      cube text NOT NULL,
      name text NOT NULL,
      partition text NOT NULL,
      table_name text NOT NULL,
      build_sql text NOT NULL,
      refresh_key_value text NOT NULL,
      range_start text,
      range_end text,
      built_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (deployment_id, cube, name, partition)
    );

    CREATE TABLE pre_aggregation_leases (
      deployment_id integer PRIMARY KEY REFERENCES deployments(id) ON DELETE CASCADE,
      owner text NOT NULL,
      expires_at timestamptz NOT NULL,
      builds integer NOT NULL DEFAULT 0
    );
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'DROP TABLE pre_aggregation_leases; DROP TABLE pre_aggregation_tables');
}
