import type { Config } from '../../config/config.ts';
import type { SecretBox } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { DashboardDataService } from '../dashboard-data/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { EmbedIdentities } from '../embed-tenants/identities.ts';
import type { ComposedModule } from '../module.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import { type Channels, createChannels } from './channels.ts';
import { DashboardExportsService } from './exports.ts';
import { ExportsRepository } from './exports-repository.ts';
import type { PublishedVersions, UserLookup, WorkbookLookup } from './ports.ts';
import { RecipientsService } from './recipients.ts';
import { DashboardRenderer } from './renderer.ts';
import { NotificationsRepository } from './repository.ts';
import { dashboardExportRoutes, notificationRoutes } from './routes.ts';
import { RunLog } from './run-log.ts';
import { RunsRepository } from './runs-repository.ts';
import { NotificationScheduler, notificationSchedulerPlugin, type SchedulerOptions } from './scheduler.ts';
import { NotificationsService } from './service.ts';

export interface NotificationsDeps {
  config: Pick<Config, 'smtpUrl' | 'smtpFrom' | 'scheduler'>;
  db: Db;
  secrets: SecretBox;
  deployments: DeploymentsService;
  access: AccessResolver;
  users: UserLookup;
  workbooks: WorkbookLookup;
  /** Recipients and export subjects that are embed users are created there (the one writer). */
  embedIdentities: Pick<EmbedIdentities, 'upsertTenant' | 'upsertUser'>;
  publishedDashboards: PublishedVersions;
  dashboardData: DashboardDataService;
  publicUrl: () => string;
  /** Issue 22 item 5: notification changes, send-nows and dashboard exports are recorded. */
  audit: Pick<AuditLog, 'record'>;
  /** Tests and the bench replace the delivery channels or the scheduler's timings. */
  channels?: Channels;
  schedulerOptions?: Partial<SchedulerOptions>;
}

/**
 * The notifications module's objects, built in dependency order for the composition root
 * (composition.ts): the API services, the renderer they share with dashboard exports, and the
 * scheduler every replica runs; and the plugin of their routes and of the scheduler (issue 22 item 0).
 */
export function composeNotifications(
  deps: NotificationsDeps,
): ComposedModule<{ notifications: NotificationsParts }> {
  const parts = notificationsParts(deps);
  return {
    services: { notifications: parts },
    routes: async (app) => {
      await app.register(notificationRoutes, {
        notifications: parts.notifications,
        recipients: parts.recipients,
        runs: parts.runs,
      });
      await app.register(dashboardExportRoutes, { exports: parts.exports });
      await app.register(notificationSchedulerPlugin, {
        scheduler: parts.scheduler,
        disabled: deps.config.scheduler.disabled,
      });
    },
  };
}

function notificationsParts(deps: NotificationsDeps) {
  const repository = new NotificationsRepository(deps.db);
  const runsRepository = new RunsRepository(deps.db);
  const exportsRepository = new ExportsRepository(deps.db);
  const notifications = new NotificationsService({
    db: deps.db,
    notifications: repository,
    deployments: deps.deployments,
    audit: deps.audit,
  });
  const recipients = new RecipientsService({
    db: deps.db,
    audit: deps.audit,
    notifications,
    repository,
    users: deps.users,
    embedIdentities: deps.embedIdentities,
    secrets: deps.secrets,
  });
  const renderer = new DashboardRenderer({
    dashboards: deps.publishedDashboards,
    dashboardData: deps.dashboardData,
    users: deps.users,
  });
  const exports = new DashboardExportsService({
    db: deps.db,
    audit: deps.audit,
    exports: exportsRepository,
    notifications: repository,
    deployments: deps.deployments,
    access: deps.access,
    workbooks: deps.workbooks,
    users: deps.users,
    embedIdentities: deps.embedIdentities,
    renderer,
    renderOnSubmit: !deps.config.scheduler.disabled,
  });
  const scheduler = new NotificationScheduler(
    {
      db: deps.db,
      runs: runsRepository,
      notifications: repository,
      renderer,
      channels:
        deps.channels ?? createChannels({ smtpUrl: deps.config.smtpUrl, smtpFrom: deps.config.smtpFrom }),
      secrets: deps.secrets,
      publicUrl: deps.publicUrl,
      exports,
    },
    {
      intervalMs: deps.config.scheduler.intervalMs,
      concurrency: deps.config.scheduler.concurrency,
      ...deps.schedulerOptions,
    },
  );
  const runs = new RunLog({ notifications, runs: runsRepository, db: deps.db, audit: deps.audit });
  return { notifications, recipients, renderer, exports, scheduler, runs, runsRepository };
}

export type NotificationsParts = ReturnType<typeof notificationsParts>;
