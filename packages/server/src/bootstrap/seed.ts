import path from 'node:path';
import { sql } from 'kysely';
import { generateApiKey, isWellFormedKey } from '../auth/credentials.ts';
import { randomToken, type SecretBox, sha256 } from '../crypto/secrets.ts';
import { sampleModelFiles } from '../datasources/sample/model-files.ts';
import type { Db } from '../db/database.ts';
import { generatePassword, hashPassword } from '../modules/sign-in/passwords.ts';
import { writePrivateFile } from './secret-key.ts';

export interface SeedOptions {
  dataDir: string;
  adminApiKey: string | null;
  /**
   * The first admin's email, when the operator gave one (TESSERA_ADMIN_EMAIL); without it the
   * admin is `admin@localhost`, which no mail reaches, and the web app asks them for an address on
   * first sign-in (PATCH /api/v1/users/me).
   */
  adminEmail?: string | null;
  skipDemo: boolean;
  /**
   * Generate (and print) the first admin key when the tenant has none, and the first admin's
   * password when they have none; admin commands leave both to `start`.
   */
  createAdminKey?: boolean;
}

export interface SeedResult {
  tenantId: number;
  adminUserId: number;
  /** The first admin's email: the web app's sign-in name. */
  adminEmail: string;
  /** Set only when this start gave the first admin a password: it is printed once. */
  createdAdminPassword: string | null;
  adminPasswordFile: string | null;
  /** Set only when this start created the admin key: it is printed once. */
  createdAdminKey: string | null;
  adminKeyFile: string | null;
  demoDeploymentId: number | null;
  /** The demo chat agent on the demo deployment (DESIGN.md "Chat agent"), for the chat URL. */
  demoAgentId: number | null;
  /** The account name the chat URL carries. */
  tenantName: string;
}

/** Arbitrary constant for pg_advisory_xact_lock: replicas starting together seed once. */
const seedLock = 7_246_001;

/**
 * First start: a default tenant, an admin user with an admin API key and a password for the web
 * app (each printed once and saved 0600 under the data directory), and a demo deployment on the
 * sample data. Later starts reuse them.
 */
export async function seed(db: Db, secrets: SecretBox, options: SeedOptions): Promise<SeedResult> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${seedLock})`.execute(trx);
    // The first-start tenant is the one named "default", whatever other tenants were added since.
    let tenant = await trx.selectFrom('tenants').selectAll().where('name', '=', 'default').executeTakeFirst();
    tenant ??= await trx
      .insertInto('tenants')
      .values({ name: 'default', display_name: 'Default' })
      .returningAll()
      .executeTakeFirstOrThrow();

    let admin = await trx
      .selectFrom('users')
      .selectAll()
      .where('tenant_id', '=', tenant.id)
      .where('role', '=', 'admin')
      .orderBy('id')
      .executeTakeFirst();
    admin ??= await trx
      .insertInto('users')
      .values({
        tenant_id: tenant.id,
        email: options.adminEmail ?? 'admin@localhost',
        username: 'admin',
        // Identity providers (SCIM, Okta imports) expect a given and a family name.
        first_name: 'Tessera',
        last_name: 'Admin',
        role: 'admin',
      })
      .returningAll()
      .executeTakeFirstOrThrow();

    let createdAdminKey: string | null = null;
    let adminKeyFile: string | null = null;
    if (options.adminApiKey) {
      if (!isWellFormedKey(options.adminApiKey)) {
        throw new Error(
          'TESSERA_ADMIN_API_KEY must look like tsk_ followed by 43 base64url characters (tessera create-api-key prints one)',
        );
      }
      await trx
        .insertInto('api_keys')
        .values({
          tenant_id: tenant.id,
          user_id: admin.id,
          name: 'bootstrap (TESSERA_ADMIN_API_KEY)',
          kind: 'api',
          key_hash: sha256(options.adminApiKey),
          key_prefix: options.adminApiKey.slice(0, 12),
          deployment_ids: null,
        })
        .onConflict((oc) => oc.column('key_hash').doNothing())
        .execute();
    } else if (options.createAdminKey !== false) {
      // Only an admin's key counts: keys made earlier for other users (CLI) do not open the account.
      const existing = await trx
        .selectFrom('api_keys as k')
        .innerJoin('users as u', 'u.id', 'k.user_id')
        .select('k.id')
        .where('k.tenant_id', '=', tenant.id)
        .where('u.role', '=', 'admin')
        .executeTakeFirst();
      if (!existing) {
        const generated = generateApiKey();
        await trx
          .insertInto('api_keys')
          .values({
            tenant_id: tenant.id,
            user_id: admin.id,
            name: 'admin (first start)',
            kind: 'api',
            key_hash: generated.hash,
            key_prefix: generated.prefix,
            deployment_ids: null,
          })
          .execute();
        createdAdminKey = generated.key;
        adminKeyFile = path.join(options.dataDir, 'admin-api-key');
        writePrivateFile(adminKeyFile, `${generated.key}\n`);
      }
    }

    // The password is stored only as its argon2id hash; the admin changes it with
    // PUT /api/v1/session/password, and `tessera reset-password` makes a new one.
    let createdAdminPassword: string | null = null;
    let adminPasswordFile: string | null = null;
    if (options.createAdminKey !== false && admin.password_hash === null) {
      createdAdminPassword = generatePassword();
      await trx
        .updateTable('users')
        .set({ password_hash: await hashPassword(createdAdminPassword) })
        .where('id', '=', admin.id)
        .execute();
      adminPasswordFile = path.join(options.dataDir, 'admin-password');
      writePrivateFile(adminPasswordFile, `${createdAdminPassword}\n`);
    }

    let demoDeploymentId: number | null = null;
    const anyDeployment = await trx
      .selectFrom('deployments')
      .select('id')
      .where('tenant_id', '=', tenant.id)
      .executeTakeFirst();
    if (!anyDeployment && !options.skipDemo) {
      const demo = await trx
        .insertInto('deployments')
        .values({
          tenant_id: tenant.id,
          name: 'Demo',
          data_source: JSON.stringify({ type: 'duckdb', path: ':sample:' }),
          api_secret_enc: secrets.seal(randomToken(32)),
          base_path: '/cubejs-api',
          creation_step: 'demo',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('environments')
        .values({ deployment_id: demo.id, type: 'production', branch: 'main', user_id: null })
        .execute();
      // The demo's data model (orders, line items, products, customers) on branch main.
      await trx
        .insertInto('model_files')
        .values(sampleModelFiles().map((f) => ({ deployment_id: demo.id, branch: 'main', ...f })))
        .execute();
      demoDeploymentId = demo.id;
      await trx
        .insertInto('agents')
        .values({
          tenant_id: tenant.id,
          deployment_id: demo.id,
          name: 'Demo analyst',
          instructions: 'Answer questions about the demo shop: orders, revenue, products and customers.',
          brain: JSON.stringify({ kind: 'builtin' }),
          api_key_enc: null,
        })
        .execute();
    }
    const demoAgent = await trx
      .selectFrom('agents as a')
      .innerJoin('deployments as d', 'd.id', 'a.deployment_id')
      .select('a.id')
      .where('a.tenant_id', '=', tenant.id)
      .where('d.creation_step', '=', 'demo')
      .orderBy('a.id')
      .executeTakeFirst();
    return {
      tenantId: tenant.id,
      tenantName: tenant.name,
      adminUserId: admin.id,
      adminEmail: admin.email,
      createdAdminPassword,
      adminPasswordFile,
      createdAdminKey,
      adminKeyFile,
      demoDeploymentId,
      demoAgentId: demoAgent?.id ?? null,
    };
  });
}
