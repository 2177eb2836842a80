import { Type } from 'typebox';
import { JsonObject, nullable, strict } from '../workspace/common.ts';

/** The reference's AppTheme: the palette and logo of the whole application. */
export const AppTheme = Type.Object(
  {
    palette: Type.Optional(JsonObject),
    logoUrl: Type.Optional(Type.String({ maxLength: 2048 })),
    typography: Type.Optional(nullable(JsonObject)),
    light: Type.Optional(JsonObject),
    dark: Type.Optional(JsonObject),
  },
  strict,
);

/** The reference's CreatorMode settings. */
export const CreatorMode = Type.Object(
  {
    workspaceTitle: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
    showWorkspaceTitle: Type.Optional(nullable(Type.Boolean())),
    showGeneratedSql: Type.Optional(nullable(Type.Boolean())),
    showSemanticSql: Type.Optional(nullable(Type.Boolean())),
    localizedTitles: Type.Optional(
      nullable(
        Type.Array(
          Type.Object(
            { locale: Type.String({ maxLength: 35 }), value: Type.String({ maxLength: 1000 }) },
            strict,
          ),
          {
            maxItems: 50,
          },
        ),
      ),
    ),
  },
  strict,
);

/** `GET /app-config` (spec 4 and 9, 0.1.2). */
export const AppConfigResponse = Type.Object({
  appTheme: nullable(AppTheme),
  applyThemeGlobally: Type.Boolean(),
  creatorMode: nullable(CreatorMode),
  restrictDataDownload: Type.Boolean(),
  sheetsAgentChatEnabled: Type.Boolean(),
});

export const UpdateAppConfigBody = Type.Object(
  {
    appTheme: Type.Optional(nullable(AppTheme)),
    applyThemeGlobally: Type.Optional(Type.Boolean()),
    creatorMode: Type.Optional(nullable(CreatorMode)),
    restrictDataDownload: Type.Optional(
      Type.Boolean({
        description:
          'Spec 2.3: every published dashboard of the account reports it; the web app then offers no data download',
      }),
    ),
  },
  strict,
);
