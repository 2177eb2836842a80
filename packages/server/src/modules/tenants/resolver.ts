import type { TenantRow } from '../../db/schema.ts';
import { NotFoundError } from '../../errors/domain-errors.ts';
import type { TenantsRepository } from './repository.ts';

/**
 * Resolves the tenant (account) of a request from its Host header (DESIGN.md "Addresses"):
 * `{tenant}.{TESSERA_DOMAIN}`, a custom domain, or the single tenant when there is only one.
 * Tenants change rarely, so the table is held in memory and reloaded every few seconds.
 */
export class TenantResolver {
  private tenants: TenantRow[] = [];
  private loadedAt = 0;
  private loading: Promise<void> | null = null;

  constructor(
    private readonly repository: TenantsRepository,
    private readonly domain: string | null,
    private readonly ttlMs = 5_000,
  ) {}

  invalidate() {
    this.loadedAt = 0;
  }

  async resolve(hostHeader: string | undefined): Promise<TenantRow> {
    await this.refresh();
    const host = (hostHeader ?? '').toLowerCase().replace(/:\d+$/, '');
    const byDomain = this.tenants.find(
      (t) => t.custom_domain !== null && t.custom_domain.toLowerCase() === host,
    );
    if (byDomain) return byDomain;
    if (this.domain && host.endsWith(`.${this.domain}`)) {
      const name = host
        .slice(0, -(this.domain.length + 1))
        .split('.')
        .pop();
      const bySubdomain = this.tenants.find((t) => t.name === name);
      if (bySubdomain) return bySubdomain;
    }
    if (this.tenants.length === 1) return this.tenants[0];
    throw new NotFoundError(`Tenant for host "${host}"`, 'tenant_not_found');
  }

  private async refresh() {
    if (Date.now() - this.loadedAt < this.ttlMs) return;
    this.loading ??= this.repository
      .list()
      .then((rows) => {
        this.tenants = rows;
        this.loadedAt = Date.now();
      })
      .finally(() => {
        this.loading = null;
      });
    await this.loading;
  }
}
