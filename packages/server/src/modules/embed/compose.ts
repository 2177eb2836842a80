import type { ComposedModule } from '../module.ts';
import { EmbedDashboardsService } from './dashboard-service.ts';
import { embedRoutes } from './routes.ts';
import { EmbedSessionService } from './session-service.ts';
import { EmbedSettingsService } from './settings-service.ts';
import { EmbedSweeper, embedSweeperPlugin } from './sweeper.ts';
import { EmbedTokens } from './tokens.ts';

/**
 * Embedding (spec 2.6, 4.3): embed tokens, embeddable dashboards, sessions, the account's embed
 * settings and the sweeper of expired embed users; the services and their plugins (issue 22 item 0).
 */
export function composeEmbed(deps: {
  tokens: ConstructorParameters<typeof EmbedTokens>[0];
  dashboards: ConstructorParameters<typeof EmbedDashboardsService>[0];
  /** The session service's dependencies but the embeddable dashboards and tokens, given from here. */
  sessions: Omit<ConstructorParameters<typeof EmbedSessionService>[0], 'dashboards' | 'tokens'>;
  settings: ConstructorParameters<typeof EmbedSettingsService>;
  sweeper: ConstructorParameters<typeof EmbedSweeper>[0];
}): ComposedModule<{
  embedTokens: EmbedTokens;
  embedDashboards: EmbedDashboardsService;
  embedSessions: EmbedSessionService;
  embedSettings: EmbedSettingsService;
  embedSweeper: EmbedSweeper;
}> {
  const embedTokens = new EmbedTokens(deps.tokens);
  const embedDashboards = new EmbedDashboardsService(deps.dashboards);
  const embedSessions = new EmbedSessionService({
    ...deps.sessions,
    dashboards: embedDashboards,
    tokens: embedTokens,
  });
  const embedSettings = new EmbedSettingsService(...deps.settings);
  const embedSweeper = new EmbedSweeper(deps.sweeper);
  return {
    services: { embedTokens, embedDashboards, embedSessions, embedSettings, embedSweeper },
    routes: async (app) => {
      await app.register(embedRoutes, {
        sessions: embedSessions,
        dashboards: embedDashboards,
        settings: embedSettings,
      });
      await app.register(embedSweeperPlugin, { sweeper: embedSweeper });
    },
  };
}
