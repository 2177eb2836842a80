import { generateApiKey } from '../auth/credentials.ts';
import { openMigratedStore, secretBoxFor } from '../bootstrap/runtime.ts';
import { seed } from '../bootstrap/seed.ts';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/database.ts';
import { type AccountRole, accountRoles } from '../db/schema.ts';
import { ApiKeysRepository } from '../modules/api-keys/repository.ts';
import { apiKeyView } from '../modules/api-keys/service.ts';
import { generatePassword, hashPassword } from '../modules/sign-in/passwords.ts';
import { SignInRepository } from '../modules/sign-in/repository.ts';
import { TenantsRepository } from '../modules/tenants/repository.ts';
import { UsersRepository } from '../modules/users/repository.ts';
import { userView } from '../modules/users/service.ts';

/** Admin commands for scripts and containers: they work on the store directly, without a server. */
async function withStore<T>(
  config: Config,
  run: (ctx: { tenantId: number; users: UsersRepository; keys: ApiKeysRepository; db: Db }) => Promise<T>,
) {
  const store = await openMigratedStore(config);
  try {
    const seeded = await seed(store.db, secretBoxFor(config), {
      dataDir: config.dataDir,
      adminApiKey: config.adminApiKey,
      skipDemo: true,
      createAdminKey: false,
    });
    return await run({
      tenantId: seeded.tenantId,
      users: new UsersRepository(store.db),
      keys: new ApiKeysRepository(store.db),
      db: store.db,
    });
  } finally {
    await store.close();
  }
}

export async function createUserCommand(
  config: Config,
  args: { email?: string; username?: string; role?: string },
) {
  if (!args.email) throw new UsageError('create-user needs --email');
  const role = (args.role ?? 'viewer') as AccountRole;
  if (!accountRoles.includes(role)) throw new UsageError(`--role must be one of ${accountRoles.join(', ')}`);
  return withStore(config, async ({ tenantId, users }) => {
    const row = await users.insert(tenantId, {
      email: args.email!,
      username: args.username ?? args.email!,
      role,
    });
    return userView(row);
  });
}

export async function createApiKeyCommand(
  config: Config,
  args: { email?: string; name?: string; deployments?: string; kind?: string; expiresAt?: string },
) {
  return withStore(config, async ({ tenantId, users, keys }) => {
    const email = args.email ?? 'admin@localhost';
    const user = await users.findByEmail(tenantId, email);
    if (!user) throw new UsageError(`No user with email ${email}`);
    const deploymentIds = args.deployments ? args.deployments.split(',').map((s) => Number(s.trim())) : null;
    if (deploymentIds?.some((n) => !Number.isInteger(n) || n < 1))
      throw new UsageError('--deployments takes comma-separated ids');
    const kind = args.kind ?? 'api';
    if (kind !== 'api' && kind !== 'scim') throw new UsageError('--kind must be api or scim');
    const expiresAt = args.expiresAt ? new Date(args.expiresAt) : null;
    if (expiresAt && Number.isNaN(expiresAt.getTime()))
      throw new UsageError('--expires-at must be an ISO date-time');
    const generated = generateApiKey();
    const row = await keys.insert({
      tenantId,
      userId: user.id,
      name: args.name ?? 'cli',
      kind,
      hash: generated.hash,
      prefix: generated.prefix,
      deploymentIds,
      expiresAt,
    });
    return { ...apiKeyView(row), key: generated.key };
  });
}

/**
 * A new generated password for a user of the default tenant (a forgotten one, or a user made by
 * `create-user`), printed once; their browser sessions end. Users change it afterwards in the web
 * app (PUT /api/v1/session/password).
 */
export async function resetPasswordCommand(config: Config, args: { email?: string }) {
  if (!args.email) throw new UsageError('reset-password needs --email');
  return withStore(config, async ({ tenantId, users, db }) => {
    const user = await users.findByEmail(tenantId, args.email!);
    if (!user) throw new UsageError(`No user with email ${args.email}`);
    const password = generatePassword();
    const hash = await hashPassword(password);
    const signIn = new SignInRepository(db);
    await db.transaction().execute(async (trx) => {
      await signIn.setPasswordHash(tenantId, user.id, hash, trx);
      await signIn.revokeAllOfUser(user.id, trx);
    });
    return { id: user.id, email: user.email, password };
  });
}

/**
 * A new tenant (account) with its first admin and an admin API key, for self-hosters serving
 * several accounts on `{tenant}.{TESSERA_DOMAIN}` or their own domains.
 */
export async function createTenantCommand(
  config: Config,
  args: { name?: string; domain?: string; email?: string },
) {
  if (!args.name || !/^[a-z][a-z0-9-]{0,61}[a-z0-9]$/.test(args.name)) {
    throw new UsageError(
      'create-tenant needs --name: lowercase letters, digits and dashes (a subdomain label)',
    );
  }
  const store = await openMigratedStore(config);
  try {
    const tenants = new TenantsRepository(store.db);
    if (await tenants.findByName(args.name)) throw new UsageError(`Tenant ${args.name} already exists`);
    const tenant = await tenants.create({
      name: args.name,
      displayName: args.name,
      customDomain: args.domain ?? null,
    });
    const email = args.email ?? `admin@${args.name}.localhost`;
    const admin = await new UsersRepository(store.db).insert(tenant.id, {
      email,
      username: email,
      role: 'admin',
    });
    const generated = generateApiKey();
    await new ApiKeysRepository(store.db).insert({
      tenantId: tenant.id,
      userId: admin.id,
      name: 'admin (create-tenant)',
      kind: 'api',
      hash: generated.hash,
      prefix: generated.prefix,
      deploymentIds: null,
      expiresAt: null,
    });
    return {
      id: tenant.id,
      name: tenant.name,
      customDomain: tenant.custom_domain,
      adminEmail: email,
      adminApiKey: generated.key,
    };
  } finally {
    await store.close();
  }
}

export class UsageError extends Error {}
