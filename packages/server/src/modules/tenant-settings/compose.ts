import { type ComposedModule, routesWith } from '../module.ts';
import { tenantSettingsRoutes } from './routes.ts';
import { TenantSettingsService } from './service.ts';

/** Tenant settings: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeTenantSettings(
  ...deps: ConstructorParameters<typeof TenantSettingsService>
): ComposedModule<{ tenantSettings: TenantSettingsService }> {
  const tenantSettings = new TenantSettingsService(...deps);
  return { services: { tenantSettings }, routes: routesWith(tenantSettingsRoutes, { tenantSettings }) };
}
