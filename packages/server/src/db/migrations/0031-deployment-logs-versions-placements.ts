import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 25 item 1: a deployment's recent logs (queries run by the data API, models built or
 * validated), readable by any replica. Each replica writes its own lines (`pod` names it); the
 * table keeps the newest lines per deployment only, pruned as lines are written
 * (modules/deployment-logs/repository.ts), so it stays small however busy the deployment is. A
 * line holds member names, durations, row counts and error codes: never SQL text, filter values
 * or any other bound parameter, which could be a secret.
 *
 * Issue 25 item 1: the versions of a deployment's model: each change of the default branch (a
 * write, a merge to it, an upload) is recorded with who made it, when, and the hash of the files
 * it left, so `GET .../versions` lists the model's history.
 *
 * Issue 25 item 4: where a report is placed in a spreadsheet (the reference's connect-workbook):
 * one row per workbook and location, refreshed by whom and when, with the checksums a spreadsheet
 * add-in compares to tell whether its copy is current.
 */
const statements = `
    CREATE TABLE deployment_logs (
      id bigserial PRIMARY KEY,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      source text NOT NULL CHECK (source IN ('production', 'dev')),
      kind text NOT NULL CHECK (kind IN ('query', 'build')),
      level text NOT NULL CHECK (level IN ('info', 'error')),
      branch text NOT NULL,
      pod text NOT NULL,
      message text NOT NULL,
      details jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX deployment_logs_recent ON deployment_logs (deployment_id, id DESC);

    CREATE TABLE model_versions (
      id serial PRIMARY KEY,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      files_hash text NOT NULL,
      files jsonb NOT NULL DEFAULT '[]',
      action text NOT NULL,
      from_branch text,
      created_by integer REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX model_versions_recent ON model_versions (deployment_id, id DESC);

    CREATE TABLE report_placements (
      id serial PRIMARY KEY,
      report_id integer NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
      placement_id text NOT NULL,
      external_workbook_id text NOT NULL,
      workbook_name text,
      host text,
      sheet_id text,
      sheet_name text,
      anchor_cell text,
      end_result_cell text,
      result_location text NOT NULL,
      result_checksum jsonb,
      query_checksum text,
      placed_by integer,
      placed_at timestamptz NOT NULL DEFAULT now(),
      refreshed_by integer,
      refreshed_at timestamptz,
      UNIQUE (report_id, placement_id),
      UNIQUE (report_id, external_workbook_id, result_location)
    );
    ALTER TABLE reports ADD COLUMN refreshed_by integer;
    ALTER TABLE reports ADD COLUMN refreshed_at timestamptz;
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    [
      'ALTER TABLE reports DROP COLUMN refreshed_at',
      'ALTER TABLE reports DROP COLUMN refreshed_by',
      'DROP TABLE report_placements',
      'DROP TABLE model_versions',
      'DROP TABLE deployment_logs',
    ].join(';\n'),
  );
}
