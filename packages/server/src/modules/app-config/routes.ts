import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { AppConfigResponse, UpdateAppConfigBody } from './schemas.ts';
import type { AppConfigService } from './service.ts';

const tags = ['App Theme'];

export const appConfigRoutes: FastifyPluginAsyncTypebox<{ appConfig: AppConfigService }> = async (
  app,
  { appConfig },
) => {
  app.get(
    '/api/v1/app-config',
    {
      schema: {
        tags,
        operationId: 'getAppConfig',
        summary: 'The app theme and creator-mode settings of the account',
        response: { 200: AppConfigResponse },
      },
      // Harmless account-wide display settings: deployment-scoped keys may read them too.
      config: { access: { role: 'viewer', scopedKeys: 'filter' } },
    },
    (r) => appConfig.get(principalOf(r)),
  );
  app.put(
    '/api/v1/app-config',
    {
      schema: {
        tags,
        operationId: 'updateAppConfig',
        summary: 'Set the app theme, whether it applies globally, and creator-mode settings (admin)',
        body: UpdateAppConfigBody,
        response: { 200: AppConfigResponse },
      },
      config: { access: { role: 'admin' } },
    },
    (r) => appConfig.update(principalOf(r), r.body),
  );
};
