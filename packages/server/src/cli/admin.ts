import { generateApiKey } from '../auth/credentials.ts';
import { openMigratedStore, secretBoxFor } from '../bootstrap/runtime.ts';
import { seed } from '../bootstrap/seed.ts';
import type { Config } from '../config/config.ts';
import { type AccountRole, accountRoles } from '../db/schema.ts';
import { ApiKeysRepository } from '../modules/api-keys/repository.ts';
import { apiKeyView } from '../modules/api-keys/service.ts';
import { UsersRepository } from '../modules/users/repository.ts';
import { userView } from '../modules/users/service.ts';

/** Admin commands for scripts and containers: they work on the store directly, without a server. */
async function withStore<T>(
  config: Config,
  run: (ctx: { tenantId: number; users: UsersRepository; keys: ApiKeysRepository }) => Promise<T>,
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

export class UsageError extends Error {}
