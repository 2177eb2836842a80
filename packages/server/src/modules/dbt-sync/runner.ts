import type { FastifyBaseLogger } from 'fastify';
import type { Principal } from '../../auth/principal.ts';
import { randomToken } from '../../crypto/secrets.ts';
import type { DbtSyncJobRow } from '../../db/schema.ts';
import { DomainError } from '../../errors/domain-errors.ts';
import { generateCubes } from './generate-cubes.ts';
import { readManifest } from './manifest.ts';
import type { SyncTarget } from './ports.ts';
import type { DbtSyncRepository } from './repository.ts';
import type { LogLine } from './views.ts';

/** How long a runner holds a job before another replica may take it over (its replica died). */
export const leaseMs = 2 * 60_000;

/** The runner lost the job while it ran (cancelled, or taken over after its lease passed). */
class JobLost extends Error {}

/**
 * Runs dbt sync jobs. A job runs in the replica that accepted it, right after the POST answers
 * (the reference's asynchronous shape), or in any replica whose sweep finds it orphaned. Either
 * way the runner first claims the row (repository `claim`), and commits the generated files with
 * the job's end in one transaction that re-checks the claim: a job cancelled or taken over
 * meanwhile commits nothing, so no job is ever generated onto its branch twice.
 */
export class DbtSyncRunner {
  private log: FastifyBaseLogger | null = null;

  constructor(
    private readonly jobs: DbtSyncRepository,
    private readonly target: SyncTarget,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  setLogger(log: FastifyBaseLogger): void {
    this.log = log;
  }

  /** Runs one job if no runner holds it; whether this call ran it. */
  async process(syncJobId: string): Promise<boolean> {
    const now = this.clock();
    const token = randomToken(12);
    const [job] = await this.jobs.claim(syncJobId, now, new Date(now.getTime() + leaseMs), token);
    if (!job) return false;
    await this.run(job, token);
    return true;
  }

  /** The sweep's part: runs jobs nobody holds (their replica died before or while running them). */
  async work(): Promise<number> {
    let ran = 0;
    for (;;) {
      const now = this.clock();
      const token = randomToken(12);
      const [job] = await this.jobs.claim(null, now, new Date(now.getTime() + leaseMs), token);
      if (!job) return ran;
      await this.run(job, token);
      ran++;
    }
  }

  private async run(job: DbtSyncJobRow, token: string): Promise<void> {
    const started = Date.now();
    const logs = [...(job.logs as LogLine[])];
    const phases: { phase: string; startedOffsetMs: number; durationMs: number; outcome: string }[] = [];
    const say = (level: 'info' | 'error', message: string, phase: string | null, durationMs?: number) =>
      logs.push({
        timestamp: this.clock().toISOString(),
        level,
        stream: 'system',
        message,
        phase,
        ...(durationMs !== undefined ? { durationMs } : {}),
      });
    let phase = 'parse-manifest';
    let phaseStart = Date.now();
    const endPhase = (outcome: 'ok' | 'failed') => {
      const durationMs = Date.now() - phaseStart;
      phases.push({ phase, startedOffsetMs: phaseStart - started, durationMs, outcome });
      say(
        outcome === 'ok' ? 'info' : 'error',
        `Phase ${phase} ${outcome === 'ok' ? 'done' : 'failed'}`,
        phase,
        durationMs,
      );
    };
    const begin = async (next: string, stage: string) => {
      phase = next;
      phaseStart = Date.now();
      if (!(await this.jobs.updateIfMine(job.sync_job_id, token, { stage, updated_at: this.clock() })))
        throw new JobLost();
    };
    try {
      await begin('parse-manifest', 'PROCESSING_MANIFEST');
      const project = readManifest(job.manifest ?? {});
      say(
        'info',
        `Read manifest of dbt ${project.dbtVersion ?? '(version not given)'}: ${project.counts.models} models, ` +
          `${project.tests.length} key and relationship tests, ${project.semanticModels.length} semantic models, ` +
          `${project.metrics.length} metrics`,
        phase,
      );
      endPhase('ok');
      phase = 'generate-cubes';
      phaseStart = Date.now();
      const generation = generateCubes(project);
      for (const note of generation.notes) say(note.level, note.message, phase);
      endPhase('ok');
      const stats = {
        cubeCount: generation.cubes.length,
        dbtVersion: project.dbtVersion,
        generatedFileCount: generation.files.length,
        macros: project.counts.macros,
        manifestGeneratedAt: project.generatedAt,
        models: project.counts.models,
        sources: project.counts.sources,
      };
      if (job.output === 'branch') await begin('write-cube-files', 'WRITING_CUBE_FILES');
      await this.jobs.transaction(async (jobs, trx) => {
        if (!(await jobs.lockIfMine(job.sync_job_id, token))) throw new JobLost();
        if (job.output === 'branch') {
          const errors = await this.target.writeGenerated(
            trx,
            actorOf(job),
            job.deployment_id,
            job.branch_name,
            generation.files,
          );
          say('info', `Wrote ${generation.files.length} files onto branch ${job.branch_name}`, phase);
          for (const e of errors)
            say(
              'error',
              `Model error on ${job.branch_name}: ${e.fileName ?? 'model'}${e.line ? `:${e.line}` : ''}: ${e.message}`,
              phase,
            );
          endPhase('ok');
        } else say('info', `Generated ${generation.files.length} files; output "files" commits none`, phase);
        const now = this.clock();
        await jobs.updateIfMine(job.sync_job_id, token, {
          status: 'COMPLETED',
          stage: 'COMPLETED',
          manifest: null,
          generated_files: JSON.stringify(generation.files),
          logs: JSON.stringify(logs),
          stats: JSON.stringify(stats),
          phases: JSON.stringify(phases),
          lease_until: null,
          completed_at: now,
          updated_at: now,
          duration_ms: Math.max(0, now.getTime() - new Date(job.started_at).getTime()),
        });
      });
    } catch (error) {
      if (error instanceof JobLost) return;
      // A 5xx never leaks internals: a domain error's message is the user's to read, others are logged.
      const message =
        error instanceof DomainError
          ? error.message
          : `The sync failed in phase ${phase}; see the server log`;
      if (!(error instanceof DomainError))
        this.log?.error({ err: error, syncJobId: job.sync_job_id }, 'dbt sync failed');
      endPhase('failed');
      say('error', message, phase);
      const now = this.clock();
      await this.jobs.updateIfMine(job.sync_job_id, token, {
        status: 'FAILED',
        stage: 'FAILED',
        manifest: null,
        error: message,
        failed_phase: phase,
        logs: JSON.stringify(logs),
        phases: JSON.stringify(phases),
        lease_until: null,
        completed_at: now,
        updated_at: now,
        duration_ms: Math.max(0, now.getTime() - new Date(job.started_at).getTime()),
      });
    }
  }
}

/** Who started the job, as its writes are audited (the identity fields `start` stored). */
function actorOf(job: DbtSyncJobRow): Principal {
  const a = job.actor as Partial<Principal>;
  return {
    tenantId: job.tenant_id,
    userId: a.userId ?? 0,
    role: a.role ?? 'developer',
    credentialId: a.credentialId ?? 0,
    credentialKind: a.credentialKind ?? 'api',
    deploymentIds: [job.deployment_id],
    ...(a.requestId ? { requestId: a.requestId } : {}),
  };
}
