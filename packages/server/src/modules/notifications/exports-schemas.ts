import { Type } from 'typebox';
import { DashboardFilter, TimeGrain } from '../dashboard-data/schemas.ts';
import { Id } from '../deployments/schemas.ts';
import { JsonObject, nullable, strict } from '../workspace/common.ts';
import { notificationFormats } from './schemas.ts';

/** Shapes of the reference's Dashboard Exports group (startExport, getExportStatus, downloadExport). */

const Format = Type.Enum(notificationFormats);

export const ExportSubject = Type.Object(
  {
    type: Type.Union([Type.Literal('USER'), Type.Literal('EMBED_USER')]),
    userId: Type.Optional(nullable(Id)),
    email: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 320 }))),
    embedTenantName: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 64 }))),
    externalId: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 255 }))),
    groups: Type.Optional(
      nullable(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 })),
    ),
    securityContext: Type.Optional(nullable(JsonObject)),
    userAttributes: Type.Optional(
      nullable(
        Type.Array(
          Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), value: Type.Unknown() }, strict),
          { maxItems: 100 },
        ),
      ),
    ),
  },
  strict,
);

export const StartExportBody = Type.Object(
  {
    format: Format,
    dashboardId: Type.Optional(nullable(Id)),
    dashboardPublicId: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 64 }))),
    filters: Type.Optional(nullable(Type.Array(DashboardFilter, { maxItems: 100 }))),
    timeGrains: Type.Optional(nullable(Type.Array(TimeGrain, { maxItems: 50 }))),
    memberSwitchers: Type.Optional(
      nullable(
        Type.Array(
          Type.Object(
            {
              member: Type.String({ minLength: 1, maxLength: 300 }),
              selected: Type.String({ minLength: 1, maxLength: 300 }),
            },
            strict,
          ),
          { maxItems: 50, description: 'Not supported by this server yet: only an empty list is accepted.' },
        ),
      ),
    ),
    renderAs: Type.Optional(nullable(ExportSubject)),
  },
  strict,
);

export const ExportJobParams = Type.Object({
  deploymentId: Id,
  jobId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
});

export const DownloadQuery = Type.Object({
  filename: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 120,
      pattern: '^[A-Za-z0-9._ -]+$',
      description: 'Filename stem for the attachment, without extension. Defaults to `dashboard`.',
    }),
  ),
});

export const ExportJob = Type.Object({
  jobId: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
});

export const ExportStatus = Type.Object({
  status: Type.Enum(['pending', 'processing', 'completed', 'failed'] as const),
  progress: nullable(Type.Number()),
  error: nullable(Type.String()),
  contentType: nullable(Type.String()),
});
