import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/database.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { DataService } from '../data/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { ComposedModule } from '../module.ts';
import { createMailer } from '../notifications/channels.ts';
import { AlertChecker, alertCheckerPlugin, type CheckerOptions } from './checker.ts';
import { MeasureReader } from './measure.ts';
import type { AlertMailer, AlertUsers, AlertViewers } from './ports.ts';
import { AlertsRepository } from './repository.ts';
import { alertRoutes } from './routes.ts';
import { AlertsService } from './service.ts';

export interface AlertsDeps {
  config: Pick<Config, 'smtpUrl' | 'smtpFrom' | 'scheduler'>;
  db: Db;
  deployments: DeploymentsService;
  data: Pick<DataService, 'meta' | 'compile' | 'run'>;
  users: AlertUsers;
  viewers: AlertViewers;
  publicUrl: () => string;
  audit: Pick<AuditLog, 'record'>;
  /** Tests replace the mail channel or the checker's timings. */
  mailer?: AlertMailer;
  checkerOptions?: Partial<CheckerOptions>;
}

/**
 * Alerts on measures (issue 23 item 6): the service, the checker every replica runs (started and
 * stopped with the application, off when the scheduler is), and their routes. The email channel
 * is the notifications' SMTP settings.
 */
export function composeAlerts(
  deps: AlertsDeps,
): ComposedModule<{ alerts: AlertsService; alertChecker: AlertChecker }> {
  const repository = new AlertsRepository(deps.db);
  const measures = new MeasureReader({ deployments: deps.deployments, data: deps.data });
  const checker = new AlertChecker(
    {
      db: deps.db,
      alerts: repository,
      users: deps.users,
      viewers: deps.viewers,
      measures,
      mailer: deps.mailer ?? createMailer({ smtpUrl: deps.config.smtpUrl, smtpFrom: deps.config.smtpFrom }),
      publicUrl: deps.publicUrl,
    },
    { intervalMs: deps.config.scheduler.intervalMs, ...deps.checkerOptions },
  );
  const alerts = new AlertsService({
    db: deps.db,
    alerts: repository,
    deployments: deps.deployments,
    users: deps.users,
    viewers: deps.viewers,
    measures,
    checker,
    audit: deps.audit,
  });
  return {
    services: { alerts, alertChecker: checker },
    routes: async (app) => {
      await app.register(alertRoutes, { alerts });
      await app.register(alertCheckerPlugin, { checker, disabled: deps.config.scheduler.disabled });
    },
  };
}
