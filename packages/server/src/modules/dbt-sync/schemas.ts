import { Type } from 'typebox';
import { dbtSyncRunStatuses } from '../../db/schema.ts';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';
import { Id } from '../deployments/schemas.ts';
import { nullable } from '../workspace/common.ts';

/** The reference's dbt Sync group (issue 25 item 3); names and shapes as `platform-api.yaml` gives them. */
export const dbtSyncTriggers = ['manual', 'api', 'webhook', 'agent', 'unknown'] as const;
export const dbtSyncSources = ['git', 'manifest'] as const;
export const dbtSyncOutputs = ['branch', 'files'] as const;

export const DeploymentParams = Type.Object({ deploymentId: Id });
export const SyncJobParams = Type.Object({
  deploymentId: Id,
  syncJobId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
});

/** Reference: `listDbtSyncs` query. */
export const ListQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum(dbtSyncRunStatuses)),
    trigger: Type.Optional(Type.Enum(dbtSyncTriggers)),
    ...CursorQuery,
  },
  { additionalProperties: false },
);

export const PageQuery = Type.Object({ ...CursorQuery }, { additionalProperties: false });

/** Reference: `StartDbtSyncInput`. */
export const StartBody = Type.Object(
  {
    branchName: Type.Optional(
      nullable(
        Type.String({
          minLength: 1,
          maxLength: 200,
          pattern: '^[A-Za-z0-9._/-]+$',
          description:
            'The development branch the generated cubes go onto (not main); created as a copy of main when new. ' +
            'Default `dbt-sync/{ref or "manifest"}-{yyyyMMddHHmmss}-{8 hex}`',
        }),
      ),
    ),
    manifest: Type.Optional(
      nullable(
        Type.Object(
          {},
          {
            additionalProperties: true,
            description:
              'The contents of your dbt `target/manifest.json` (schema v12, dbt 1.8 and later), as JSON. Required: ' +
              'Tessera has no dbt git integration, so `source` is always `manifest`',
          },
        ),
      ),
    ),
    output: Type.Optional(
      nullable(
        Type.Enum(dbtSyncOutputs, {
          description:
            '`branch` (default): the cubes are committed onto `branchName`; `files`: only generated, read them with ' +
            '`generated-files`',
        }),
      ),
    ),
    ref: Type.Optional(
      nullable(
        Type.String({
          minLength: 1,
          maxLength: 200,
          pattern: '^[A-Za-z0-9._/-]+$',
          description:
            "The dbt ref the manifest was built from, recorded as the run's gitRef and named in the default branch",
        }),
      ),
    ),
    source: Type.Optional(
      nullable(
        Type.Enum(dbtSyncSources, {
          description: '`manifest` (the default). `git` is refused: Tessera has no dbt git integration',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

export const StartResponse = Type.Object({
  syncJobId: Type.String(),
  workflowId: Type.String(),
  branchName: Type.String(),
});

const phases = Type.Array(
  Type.Object({
    phase: Type.String(),
    startedOffsetMs: Type.Integer(),
    durationMs: Type.Integer(),
    outcome: Type.String({ description: 'ok or failed' }),
  }),
);

export const RunStats = Type.Object({
  cubeCount: nullable(Type.Integer()),
  dbtVersion: nullable(Type.String()),
  generatedFileCount: nullable(Type.Integer()),
  macros: nullable(Type.Integer()),
  manifestGeneratedAt: nullable(Type.String()),
  models: nullable(Type.Integer()),
  sources: nullable(Type.Integer()),
});

/** Reference: `DbtSyncRun`. */
export const Run = Type.Object({
  syncJobId: Type.String(),
  deploymentId: Type.Integer(),
  status: Type.String({ description: 'RUNNING, COMPLETED, FAILED, CANCELLED or UNKNOWN' }),
  trigger: Type.String(),
  source: Type.String(),
  branchName: Type.String(),
  startedAt: Type.String({ format: 'date-time' }),
  completedAt: nullable(Type.String({ format: 'date-time' })),
  durationMs: nullable(Type.Integer()),
  errorMessage: nullable(Type.String()),
  failedPhase: nullable(Type.String()),
  gitRef: nullable(Type.String()),
  lastStage: nullable(Type.String()),
  phases: nullable(phases),
  stats: nullable(RunStats),
  triggerContext: Type.Null(),
  userId: nullable(Type.Integer()),
});

export const RunList = Type.Object({ items: Type.Array(Run), pageInfo: PageInfoSchema });

/** Reference: `DbtSyncStatusResponse`. */
export const StatusResponse = Type.Object({
  syncJobId: Type.String(),
  status: Type.String({
    description:
      'INITIALIZING, PROCESSING_MANIFEST, WRITING_CUBE_FILES, FINALIZING, COMPLETED or FAILED (a cancelled sync ' +
      'is FAILED here, with its error saying so, and CANCELLED in the list)',
  }),
  progress: Type.Object({
    stage: Type.String(),
    percentComplete: Type.Integer(),
    message: Type.Optional(nullable(Type.String())),
  }),
  updatedAt: Type.String({ format: 'date-time' }),
  error: Type.Optional(nullable(Type.String())),
});

export const CancelResponse = Type.Object({ message: Type.String() });

export const GeneratedFilesResponse = Type.Object({
  items: Type.Array(Type.Object({ path: Type.String(), content: Type.String() })),
  pageInfo: PageInfoSchema,
});

/** Reference: `DbtSyncLogEntry`. */
export const LogEntry = Type.Object({
  timestamp: Type.String({ format: 'date-time' }),
  level: Type.String({ description: 'info or error' }),
  stream: Type.String({ description: 'Always "system"' }),
  message: Type.String(),
  phase: Type.Optional(nullable(Type.String())),
  durationMs: Type.Optional(nullable(Type.Integer())),
});

export const LogsResponse = Type.Object({ items: Type.Array(LogEntry), pageInfo: PageInfoSchema });

/** Reference: `DbtSyncResultResponse`. */
export const ResultResponse = Type.Object({
  syncJobId: Type.String(),
  generatedFiles: Type.Array(Type.Object({ path: Type.String() })),
  manifestStats: Type.Object({ models: Type.Integer(), sources: Type.Integer(), macros: Type.Integer() }),
  cubeCount: Type.Integer(),
  completedAt: Type.String({ format: 'date-time' }),
  durationMs: Type.Integer(),
});
