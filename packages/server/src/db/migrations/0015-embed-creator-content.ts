import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Creator mode for embed tenants (spec 4.3 rules 1 and 2, issue 12): an embed user of a creator-mode
 * session owns the workbooks and reports it creates (`embed_user_id`, where an account user's
 * content has `user_id`), and that content lives in its embed tenant's space (`embed_tenant_id`),
 * which no user of another embed tenant ever reads. Grants may name an embed user or an embed
 * tenant group besides an account user or a global group; still exactly one grantee per row.
 * Deleting an embed tenant deletes its space; deleting an embed user leaves its content in the
 * space, ownerless, as deleting an account user does.
 */
const statements = `
    ALTER TABLE workbooks
      ADD COLUMN embed_tenant_id integer REFERENCES embed_tenants(id) ON DELETE CASCADE,
      ADD COLUMN embed_user_id integer REFERENCES embed_users(id) ON DELETE SET NULL;
    CREATE INDEX workbooks_embed_tenant ON workbooks (embed_tenant_id) WHERE embed_tenant_id IS NOT NULL;

    ALTER TABLE reports
      ADD COLUMN embed_tenant_id integer REFERENCES embed_tenants(id) ON DELETE CASCADE,
      ADD COLUMN embed_user_id integer REFERENCES embed_users(id) ON DELETE SET NULL;
    CREATE INDEX reports_embed_tenant ON reports (embed_tenant_id) WHERE embed_tenant_id IS NOT NULL;

    ALTER TABLE content_permissions
      ADD COLUMN embed_user_id integer REFERENCES embed_users(id) ON DELETE CASCADE,
      ADD COLUMN embed_group_id integer REFERENCES embed_groups(id) ON DELETE CASCADE,
      DROP CONSTRAINT content_permissions_check1,
      ADD CONSTRAINT content_permissions_one_grantee
        CHECK (num_nonnulls(user_id, group_id, embed_user_id, embed_group_id) = 1);
    DROP INDEX content_permissions_unique;
    CREATE UNIQUE INDEX content_permissions_unique ON content_permissions
      (coalesce(folder_id, 0), coalesce(workbook_id, 0), coalesce(report_id, 0),
       coalesce(user_id, 0), coalesce(group_id, 0), coalesce(embed_user_id, 0), coalesce(embed_group_id, 0));
    CREATE INDEX content_permissions_embed_user ON content_permissions (embed_user_id) WHERE embed_user_id IS NOT NULL;
    CREATE INDEX content_permissions_embed_group ON content_permissions (embed_group_id) WHERE embed_group_id IS NOT NULL;
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `DELETE FROM content_permissions WHERE embed_user_id IS NOT NULL OR embed_group_id IS NOT NULL;
     DROP INDEX content_permissions_unique;
     CREATE UNIQUE INDEX content_permissions_unique ON content_permissions
       (coalesce(folder_id, 0), coalesce(workbook_id, 0), coalesce(report_id, 0),
        coalesce(user_id, 0), coalesce(group_id, 0));
     ALTER TABLE content_permissions DROP CONSTRAINT content_permissions_one_grantee,
       DROP COLUMN embed_user_id, DROP COLUMN embed_group_id,
       ADD CONSTRAINT content_permissions_check1 CHECK (num_nonnulls(user_id, group_id) = 1);
     ALTER TABLE reports DROP COLUMN embed_tenant_id, DROP COLUMN embed_user_id;
     ALTER TABLE workbooks DROP COLUMN embed_tenant_id, DROP COLUMN embed_user_id;`,
  );
}
