import type { Static } from 'typebox';
import { generateApiKey } from '../../auth/credentials.ts';
import { hasRole, type Principal } from '../../auth/principal.ts';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import type { ApiKeyRow } from '../../db/schema.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { UserLookup } from './ports.ts';
import type { ApiKeysRepository } from './repository.ts';
import type { ApiKey, CreateApiKeyBody } from './schemas.ts';

export type ApiKeyView = Static<typeof ApiKey>;

export class ApiKeysService {
  constructor(
    private readonly repository: ApiKeysRepository,
    private readonly users: UserLookup,
    private readonly bus: InvalidationBus,
    /** Issue 22 item 5: each change is recorded in its own transaction; the key itself never is. */
    private readonly audit: Pick<AuditLog, 'record'>,
  ) {}

  /** Admins see every key of the tenant; others see their own. */
  async list(principal: Principal, query: PageQuery & { includeRevoked?: boolean }) {
    const window = pageWindow(query, 1);
    const rows = await this.repository.list(
      {
        tenantId: principal.tenantId,
        userId: hasRole(principal, 'admin') ? undefined : principal.userId,
        includeRevoked: query.includeRevoked ?? false,
      },
      window,
    );
    return toPage(rows, window, (r) => [r.id], apiKeyView);
  }

  async get(principal: Principal, id: number): Promise<ApiKeyView> {
    return apiKeyView(await this.requireVisible(principal, id));
  }

  /** The key is returned once, here; only its SHA-256 hash is stored. */
  async create(principal: Principal, input: Static<typeof CreateApiKeyBody>) {
    const ownerId = input.userId ?? principal.userId;
    const isAdmin = hasRole(principal, 'admin');
    if (ownerId !== principal.userId && !isAdmin)
      throw new ForbiddenError('Only admins create keys for other users', 'insufficient_role');
    if (input.kind === 'scim' && !isAdmin)
      throw new ForbiddenError('Only admins create SCIM tokens', 'insufficient_role');
    const problems = [];
    const owner = await this.users.find(principal.tenantId, ownerId);
    if (!owner || owner.is_deactivated)
      problems.push({ field: 'body/userId', message: 'is not an active user of this account' });
    const deploymentIds = input.deploymentIds ?? null;
    if (deploymentIds) {
      const existing = new Set(
        await this.repository.existingDeploymentIds(principal.tenantId, deploymentIds),
      );
      const unknown = deploymentIds.filter((id) => !existing.has(id));
      if (unknown.length > 0)
        problems.push({ field: 'body/deploymentIds', message: `unknown deployments: ${unknown.join(', ')}` });
    }
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now())
      problems.push({ field: 'body/expiresAt', message: 'must be in the future' });
    if (problems.length > 0) throw new ValidationError('The API key cannot be created', problems);

    const generated = generateApiKey();
    const row = await this.repository.transaction(async (trx) => {
      const inserted = await this.repository.insert(
        {
          tenantId: principal.tenantId,
          userId: ownerId,
          name: input.name.trim(),
          kind: input.kind ?? 'api',
          hash: generated.hash,
          prefix: generated.prefix,
          deploymentIds,
          expiresAt,
        },
        trx,
      );
      await this.audit.record(trx, principal, {
        action: 'api_key.create',
        targetType: 'api_key',
        targetId: inserted.id,
        after: apiKeyView(inserted),
      });
      return inserted;
    });
    return { ...apiKeyView(row), key: generated.key };
  }

  async revoke(principal: Principal, id: number): Promise<ApiKeyView> {
    const current = await this.requireVisible(principal, id);
    const row = await this.repository.transaction(async (trx) => {
      const revoked = await this.repository.revoke(principal.tenantId, id, trx);
      if (revoked && current.revoked_at === null)
        await this.audit.record(trx, principal, {
          action: 'api_key.revoke',
          targetType: 'api_key',
          targetId: id,
          before: apiKeyView(current),
          after: apiKeyView(revoked),
        });
      return revoked;
    });
    this.bus.publish('credentials');
    if (!row) throw new NotFoundError(`API key ${id}`, 'api_key_not_found');
    return apiKeyView(row);
  }

  private async requireVisible(principal: Principal, id: number): Promise<ApiKeyRow> {
    const row = await this.repository.findById(principal.tenantId, id);
    if (!row || (row.user_id !== principal.userId && !hasRole(principal, 'admin'))) {
      throw new NotFoundError(`API key ${id}`, 'api_key_not_found');
    }
    return row;
  }
}

export function apiKeyView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    prefix: row.key_prefix,
    userId: row.user_id,
    deploymentIds: row.deployment_ids,
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}
