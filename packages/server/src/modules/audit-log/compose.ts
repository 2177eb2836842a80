import { type ComposedModule, routesWith } from '../module.ts';
import { auditLogRoutes } from './routes.ts';
import { AuditLog } from './service.ts';

/** The audit log: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeAuditLog(
  ...deps: ConstructorParameters<typeof AuditLog>
): ComposedModule<{ auditLog: AuditLog }> {
  const auditLog = new AuditLog(...deps);
  return { services: { auditLog }, routes: routesWith(auditLogRoutes, { auditLog }) };
}
