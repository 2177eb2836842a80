import type { FastifyBaseLogger } from 'fastify';
import type { DashboardView, UsageAnalyticsRepository } from './repository.ts';

/** Views are kept 90 days, and at most this many per tenant (the newest). */
export const viewRetentionDays = 90;
export const viewsPerTenantMax = 200_000;
/** A tenant's views are pruned at most this often per process. */
const pruneEveryMs = 10 * 60_000;

/**
 * The dashboard view log (issue 25 item 5): a row each time a published dashboard is opened.
 * `record` returns at once: the insert runs behind the response, so the view route never waits
 * for it, and a failed insert costs the log a row, never the viewer their dashboard. The table
 * stays bounded by age and count, pruned in the same background at most every ten minutes.
 */
export class DashboardViewLog {
  private readonly prunedAt = new Map<number, number>();
  private readonly pending = new Set<Promise<void>>();
  private log: Pick<FastifyBaseLogger, 'warn'> | undefined;

  constructor(private readonly repository: UsageAnalyticsRepository) {}

  /** Where a failed write is reported (the app's logger, set at start). */
  useLogger(log: Pick<FastifyBaseLogger, 'warn'>): void {
    this.log = log;
  }

  record(view: DashboardView): void {
    const work = this.write(view).catch((error) =>
      this.log?.warn({ err: error, dashboardId: view.dashboardId }, 'dashboard view not recorded'),
    );
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  /** Waits for the writes under way (shutdown, and tests that read what they just viewed). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async write(view: DashboardView): Promise<void> {
    await this.repository.recordView(view);
    const last = this.prunedAt.get(view.tenantId) ?? 0;
    if (Date.now() - last < pruneEveryMs) return;
    this.prunedAt.set(view.tenantId, Date.now());
    await this.repository.pruneViews(view.tenantId, viewRetentionDays, viewsPerTenantMax);
  }
}
