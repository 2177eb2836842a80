import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import { randomToken } from '../../crypto/secrets.ts';
import type { DbtSyncJobRow } from '../../db/schema.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { decodeCursor, encodeCursor } from '../../pagination/cursor.ts';
import { cursorId, defaultPageSize } from '../../pagination/page.ts';
import { readManifest } from './manifest.ts';
import type { SyncTarget } from './ports.ts';
import type { DbtSyncRepository } from './repository.ts';
import type { DbtSyncRunner } from './runner.ts';
import type { ListQuery, StartBody } from './schemas.ts';
import { type LogLine, runView, statusView } from './views.ts';

export interface DbtSyncServiceDeps {
  jobs: DbtSyncRepository;
  target: SyncTarget;
  runner: DbtSyncRunner;
  /**
   * Run a job at once in the replica that accepted it: false where background work is off
   * (TESSERA_SCHEDULER_DISABLED, as for dashboard exports), which leaves it to a replica's sweep.
   */
  runOnSubmit: boolean;
  clock?: () => Date;
}

/**
 * dbt sync (the reference's dbt Sync group, issue 25 item 3): a manifest uploaded with the POST is
 * checked at once (a malformed one is a 400 naming the field, and no job is made), then converted
 * by a job any replica can answer for (runner.ts) into cubes on a development branch.
 */
export class DbtSyncService {
  private readonly clock: () => Date;
  private log: FastifyBaseLogger | null = null;

  constructor(private readonly deps: DbtSyncServiceDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  setLogger(log: FastifyBaseLogger): void {
    this.log = log;
    this.deps.runner.setLogger(log);
  }

  async start(p: Principal, deploymentId: number, body: Static<typeof StartBody>) {
    await this.deps.target.deployment(p, deploymentId);
    if (body.source === 'git')
      throw new ValidationError('Tessera has no dbt git integration: upload the manifest', [
        {
          field: 'body/source',
          message: 'only "manifest" is served: send target/manifest.json in `manifest`',
        },
      ]);
    if (!body.manifest)
      throw new ValidationError('A dbt manifest is required', [
        { field: 'body/manifest', message: 'is required: the contents of target/manifest.json' },
      ]);
    if (body.branchName === 'main')
      throw new ValidationError('dbt sync writes onto a development branch', [
        {
          field: 'body/branchName',
          message: 'names main: sync onto a branch, then promote it with merge-to-default',
        },
      ]);
    const project = readManifest(body.manifest as Record<string, unknown>);
    const now = this.clock();
    const syncJobId = randomToken(18);
    const branchName = body.branchName ?? defaultBranch(body.ref ?? null, now);
    const line: LogLine = {
      timestamp: now.toISOString(),
      level: 'info',
      stream: 'system',
      message: `Sync queued: manifest of ${project.counts.models} models, output ${body.output ?? 'branch'} onto ${branchName}`,
      phase: null,
    };
    await this.deps.jobs.insert({
      sync_job_id: syncJobId,
      tenant_id: p.tenantId,
      deployment_id: deploymentId,
      user_id: p.userId > 0 ? p.userId : null,
      actor: JSON.stringify({
        userId: p.userId,
        role: p.role,
        credentialId: p.credentialId,
        credentialKind: p.credentialKind,
        requestId: p.requestId ?? null,
      }),
      trigger: p.credentialKind === 'session' ? 'manual' : 'api',
      source: 'manifest',
      output: body.output ?? 'branch',
      branch_name: branchName,
      git_ref: body.ref ?? null,
      manifest: JSON.stringify(body.manifest),
      logs: JSON.stringify([line]),
      started_at: now,
      updated_at: now,
    });
    // Run here and now, after the answer; should this replica die, a sweep elsewhere takes it over.
    if (this.deps.runOnSubmit)
      setImmediate(() => {
        this.deps.runner.process(syncJobId).catch((err) => this.log?.warn({ err }, 'dbt sync failed'));
      });
    return { syncJobId, workflowId: syncJobId, branchName };
  }

  async list(p: Principal, deploymentId: number, q: Static<typeof ListQuery>) {
    await this.deps.target.deployment(p, deploymentId);
    const size = q.first ?? defaultPageSize;
    const beforeSeq = q.after === undefined ? undefined : cursorId(decodeCursor(q.after, 1));
    const rows = await this.deps.jobs.list(
      deploymentId,
      { ...(q.status ? { status: q.status } : {}), ...(q.trigger ? { trigger: q.trigger } : {}), beforeSeq },
      size + 1,
    );
    const page = rows.slice(0, size);
    return {
      items: page.map(runView),
      pageInfo: {
        hasNextPage: rows.length > size,
        hasPreviousPage: q.after !== undefined,
        startCursor: page[0] ? encodeCursor([page[0].seq]) : null,
        endCursor: page.at(-1) ? encodeCursor([page.at(-1)!.seq]) : null,
      },
    };
  }

  async status(p: Principal, deploymentId: number, syncJobId: string) {
    return statusView(await this.job(p, deploymentId, syncJobId));
  }

  /** Cancels a running sync (nothing it generated is committed); removes a finished one's record. */
  async cancel(p: Principal, deploymentId: number, syncJobId: string) {
    const job = await this.job(p, deploymentId, syncJobId);
    const now = this.clock();
    if (job.status === 'RUNNING') {
      const line: LogLine = {
        timestamp: now.toISOString(),
        level: 'error',
        stream: 'system',
        message: 'Sync cancelled; nothing it generated was committed',
        phase: null,
      };
      if (await this.deps.jobs.cancel(deploymentId, syncJobId, now, line))
        return { message: `Sync ${syncJobId} cancelled` };
    }
    // Finished (or it finished while we looked): the record goes, its branch stays.
    if (await this.deps.jobs.remove(deploymentId, syncJobId))
      return { message: `Sync ${syncJobId} had finished; its record was removed` };
    throw new NotFoundError(`dbt sync ${syncJobId}`, 'dbt_sync_not_found');
  }

  async logs(p: Principal, deploymentId: number, syncJobId: string) {
    const job = await this.job(p, deploymentId, syncJobId);
    return { items: job.logs as LogLine[], pageInfo: onePage() };
  }

  /** The generated files, with their content, a page at a time (`first`/`after`). */
  async generatedFiles(
    p: Principal,
    deploymentId: number,
    syncJobId: string,
    q: { first?: number; after?: string },
  ) {
    const job = await this.job(p, deploymentId, syncJobId);
    if (job.status !== 'COMPLETED') throw notReady(job);
    const from = q.after === undefined ? 0 : cursorId(decodeCursor(q.after, 1)) + 1;
    const size = q.first ?? defaultPageSize;
    const items = job.generated_files.slice(from, from + size);
    return {
      items,
      pageInfo: {
        hasNextPage: from + size < job.generated_files.length,
        hasPreviousPage: from > 0,
        startCursor: items.length > 0 ? encodeCursor([from]) : null,
        endCursor: items.length > 0 ? encodeCursor([from + items.length - 1]) : null,
      },
    };
  }

  async result(p: Principal, deploymentId: number, syncJobId: string) {
    const job = await this.job(p, deploymentId, syncJobId);
    if (job.status !== 'COMPLETED' || job.completed_at === null) throw notReady(job);
    const stats = (job.stats ?? {}) as Record<string, number | null>;
    return {
      syncJobId,
      generatedFiles: job.generated_files.map((f) => ({ path: f.path })),
      manifestStats: { models: stats.models ?? 0, sources: stats.sources ?? 0, macros: stats.macros ?? 0 },
      cubeCount: stats.cubeCount ?? 0,
      completedAt: new Date(job.completed_at).toISOString(),
      durationMs: job.duration_ms ?? 0,
    };
  }

  private async job(p: Principal, deploymentId: number, syncJobId: string): Promise<DbtSyncJobRow> {
    await this.deps.target.deployment(p, deploymentId);
    const job = await this.deps.jobs.find(deploymentId, syncJobId);
    if (!job) throw new NotFoundError(`dbt sync ${syncJobId}`, 'dbt_sync_not_found');
    return job;
  }
}

const onePage = () => ({ hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null });

function notReady(job: DbtSyncJobRow) {
  return new ConflictError(
    job.status === 'RUNNING'
      ? `dbt sync ${job.sync_job_id} is still running; poll its status until COMPLETED`
      : `dbt sync ${job.sync_job_id} ended ${job.status} and has no result: ${job.error ?? 'see its logs'}`,
    'dbt_sync_not_ready',
  );
}

/** The reference's branch naming: `dbt-sync/main-20260817120000-a1b2c3d4`. */
function defaultBranch(ref: string | null, now: Date): string {
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const base = (ref ?? 'manifest').replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 100);
  return `dbt-sync/${base}-${stamp}-${randomBytes(4).toString('hex')}`;
}
