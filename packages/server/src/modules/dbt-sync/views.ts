import type { Static } from 'typebox';
import type { DbtSyncJobRow } from '../../db/schema.ts';
import type { LogEntry, Run, RunStats, StatusResponse } from './schemas.ts';

/** A job row as the reference's shapes show it (`DbtSyncRun`, `DbtSyncStatusResponse`). */
export type LogLine = Static<typeof LogEntry>;

/** The reference's stages, in the order a sync passes them, with a rough share of the work. */
export const stageProgress: Record<string, number> = {
  INITIALIZING: 0,
  PROCESSING_MANIFEST: 30,
  WRITING_CUBE_FILES: 70,
  FINALIZING: 90,
  COMPLETED: 100,
  FAILED: 100,
};

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

export function runView(row: DbtSyncJobRow): Static<typeof Run> {
  return {
    syncJobId: row.sync_job_id,
    deploymentId: row.deployment_id,
    status: row.status,
    trigger: row.trigger,
    source: row.source,
    branchName: row.branch_name,
    startedAt: new Date(row.started_at).toISOString(),
    completedAt: iso(row.completed_at),
    durationMs: row.duration_ms,
    errorMessage: row.status === 'FAILED' || row.status === 'CANCELLED' ? row.error : null,
    failedPhase: row.failed_phase,
    gitRef: row.git_ref,
    lastStage: row.stage,
    phases: row.status === 'RUNNING' ? null : ((row.phases as Static<typeof Run>['phases']) ?? []),
    stats: (row.stats as Static<typeof RunStats> | null) ?? null,
    triggerContext: null,
    userId: row.user_id,
  };
}

export function statusView(row: DbtSyncJobRow): Static<typeof StatusResponse> {
  const stage = row.status === 'RUNNING' ? row.stage : row.status === 'COMPLETED' ? 'COMPLETED' : 'FAILED';
  const failed = stage === 'FAILED';
  return {
    syncJobId: row.sync_job_id,
    status: stage,
    progress: {
      stage,
      percentComplete: stageProgress[stage] ?? 0,
      message: failed ? row.error : (messages[stage] ?? null),
    },
    updatedAt: new Date(row.updated_at).toISOString(),
    error: failed ? (row.error ?? 'The sync failed') : null,
  };
}

const messages: Record<string, string> = {
  INITIALIZING: 'Waiting for a runner',
  PROCESSING_MANIFEST: 'Reading the manifest and generating cubes',
  WRITING_CUBE_FILES: 'Writing the cube files onto the branch',
  FINALIZING: 'Recording the result',
  COMPLETED: 'Done',
};
