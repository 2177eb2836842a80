import { type Kysely, sql } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * A report snapshot's semantic query gets a column of its own, `semantic_query`, instead of JSON
 * text under `meta.jsonQuery` that every reader parsed back (dashboards/service.ts writes it,
 * dashboard-data reads it). The column is `json`, not `jsonb`: json keeps the text as written, and
 * key order is meaning in a Cube query (`order: {"b": "desc", "a": "asc"}` sorts by b first),
 * which jsonb would re-sort.
 *
 * Existing snapshots move over in SQL, row by row: a `jsonQuery` that is not JSON (never written
 * by the API, which checks it on save) stays in `meta` rather than failing the migration. A meta
 * left empty becomes null, as for a report saved without meta.
 */
const backfill = `
  DO $$
  DECLARE s record;
  BEGIN
    FOR s IN
      SELECT id, meta->>'jsonQuery' AS text FROM report_snapshots WHERE jsonb_typeof(meta->'jsonQuery') = 'string'
    LOOP
      BEGIN
        UPDATE report_snapshots
           SET semantic_query = s.text::json, meta = nullif(meta - 'jsonQuery', '{}'::jsonb)
         WHERE id = s.id;
      EXCEPTION WHEN invalid_text_representation THEN
        NULL;
      END;
    END LOOP;
  END $$`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'ALTER TABLE report_snapshots ADD COLUMN semantic_query json;');
  // One statement with semicolons inside: runStatements would split it.
  await sql.raw(backfill).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `UPDATE report_snapshots
        SET meta = coalesce(meta, '{}'::jsonb) || jsonb_build_object('jsonQuery', semantic_query::text)
      WHERE semantic_query IS NOT NULL;
     ALTER TABLE report_snapshots DROP COLUMN semantic_query;`,
  );
}
