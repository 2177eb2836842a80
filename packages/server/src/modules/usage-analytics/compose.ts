import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.ts';
import type { ComposedModule } from '../module.ts';
import { UsageAnalyticsRepository } from './repository.ts';
import { usageAnalyticsRoutes } from './routes.ts';
import { type UsageAnalyticsDeps, UsageAnalyticsService } from './service.ts';
import { UsageSource } from './source.ts';
import { DashboardViewLog } from './view-log.ts';

/**
 * Usage Analytics (issue 25 item 5): the token route, the built-in usage source the data API
 * serves (composition.ts hands `usageSource` to the data service) and the dashboard view log the
 * embed module writes to.
 */
export function composeUsageAnalytics(
  db: Db,
  deps: Omit<UsageAnalyticsDeps, 'repository'>,
): ComposedModule<{
  usageAnalytics: UsageAnalyticsService;
  usageSource: UsageSource;
  dashboardViews: DashboardViewLog;
}> {
  const repository = new UsageAnalyticsRepository(db);
  const usageAnalytics = new UsageAnalyticsService({ ...deps, repository });
  const usageSource = new UsageSource(repository);
  const dashboardViews = new DashboardViewLog(repository);
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    dashboardViews.useLogger(app.log);
    // Writes under way finish before the store closes.
    app.addHook('onClose', () => dashboardViews.settled());
    await app.register(usageAnalyticsRoutes, { usage: usageAnalytics });
  };
  return { services: { usageAnalytics, usageSource, dashboardViews }, routes };
}
