import { type Kysely, sql } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * SCIM 2.0 provisioning (modules/scim). SCIM users and groups are Tessera's users and global
 * groups; the attributes that have no column of their own (emails, phoneNumbers, addresses,
 * name.formatted, title, the enterprise extension, ...; RFC 7643 sections 4.1 to 4.3) are kept
 * in a `scim` jsonb document and filtered on with jsonb SQL. externalId is looked up by identity
 * providers (RFC 7643 section 3.1), hence the indexes.
 */
const statements = `
    ALTER TABLE users ADD COLUMN scim jsonb NOT NULL DEFAULT '{}'::jsonb;
    ALTER TABLE groups ADD COLUMN scim jsonb NOT NULL DEFAULT '{}'::jsonb;
    CREATE INDEX users_tenant_external_id ON users (tenant_id, external_id);
    CREATE INDEX groups_tenant_external_id ON groups (tenant_id, external_id);
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX groups_tenant_external_id, users_tenant_external_id`.execute(db);
  await sql`ALTER TABLE groups DROP COLUMN scim`.execute(db);
  await sql`ALTER TABLE users DROP COLUMN scim`.execute(db);
}
