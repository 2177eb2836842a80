import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { TenantSettings, TenantSettingsInput } from './schemas.ts';
import type { TenantSettingsService } from './service.ts';

const tags = ['Tenant Settings'];

export const tenantSettingsRoutes: FastifyPluginAsyncTypebox<{
  tenantSettings: TenantSettingsService;
}> = async (app, { tenantSettings }) => {
  app.get(
    '/api/v1/tenant/settings',
    {
      schema: {
        tags,
        operationId: 'getTenantSettings',
        summary: 'Get tenant settings',
        response: { 200: TenantSettings },
      },
      // Account-wide switches that the web app reads for every user; nothing secret in them.
      config: { access: { role: 'viewer', scopedKeys: 'filter' } },
    },
    (r) => tenantSettings.get(principalOf(r)),
  );
  app.put(
    '/api/v1/tenant/settings',
    {
      schema: {
        tags,
        operationId: 'updateTenantSettings',
        summary: 'Update tenant settings (admin); omitted or null fields are left unchanged',
        body: TenantSettingsInput,
        response: { 200: TenantSettings },
      },
      config: { access: { role: 'admin' } },
    },
    (r) => tenantSettings.update(principalOf(r), r.body),
  );
};
