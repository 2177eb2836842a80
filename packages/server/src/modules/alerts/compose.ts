import type { Config } from '../../config/config.ts';
import type { SecretBox } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { DataService } from '../data/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { ComposedModule } from '../module.ts';
import { createMailer } from '../notifications/channels.ts';
import { postSignedWebhook } from '../notifications/signed-webhook.ts';
import { AlertChecker, alertCheckerPlugin, type CheckerOptions } from './checker.ts';
import { MeasureReader } from './measure.ts';
import type { AlertMailer, AlertUsers, AlertViewers, AlertWebhooks } from './ports.ts';
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
  /** Seals webhook recipients' secrets at rest and opens them to sign. */
  secrets: SecretBox;
  /** Tests replace the mail channel or the checker's timings. */
  mailer?: AlertMailer;
  webhooks?: AlertWebhooks;
  checkerOptions?: Partial<CheckerOptions>;
}

/**
 * Alerts on measures (issue 23 item 6): the service, the checker every replica runs (started and
 * stopped with the application, off when the scheduler is), and their routes. The channels are
 * the notifications': their SMTP settings, and their signed webhook POST.
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
      webhooks: deps.webhooks ?? { post: (target, id, body) => postSignedWebhook(target, id, body) },
      secrets: deps.secrets,
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
    secrets: deps.secrets,
  });
  return {
    services: { alerts, alertChecker: checker },
    routes: async (app) => {
      await app.register(alertRoutes, { alerts });
      await app.register(alertCheckerPlugin, { checker, disabled: deps.config.scheduler.disabled });
    },
  };
}
