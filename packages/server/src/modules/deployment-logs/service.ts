import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import { decodeCursor, encodeCursor } from '../../pagination/cursor.ts';
import { cursorId } from '../../pagination/page.ts';
import type { DeploymentLogsRepository, NewLogLine } from './repository.ts';
import type { DeploymentLogsQuery, DeploymentLogsResponse } from './schemas.ts';

/** A line as the data API and model builds write it (their ports name the same fields). */
export interface LogLine {
  deploymentId: number;
  branch: string;
  kind: 'query' | 'build';
  level: 'info' | 'error';
  message: string;
  details: Record<string, unknown>;
}

export interface DeploymentLogsSettings {
  /** Lines kept per deployment: older ones are deleted as new ones are written. */
  keepPerDeployment: number;
  /** How often buffered lines are written to the store. */
  flushMs: number;
  /** Lines buffered at most between writes: past it the oldest are dropped (a burst costs no memory). */
  maxBuffered: number;
}

export const defaultLogSettings: DeploymentLogsSettings = {
  keepPerDeployment: 1000,
  flushMs: 1000,
  maxBuffered: 5000,
};

/** The production branch: lines about it are `production`, about any other `dev` (the reference). */
const defaultBranch = 'main';

/**
 * A deployment's recent logs (issue 25 item 1): lines written where the data API runs queries and
 * where models are compiled, kept in the metadata store so that any replica reads every replica's
 * lines. Writing is off the request's path: lines are buffered and written in one statement every
 * `flushMs`, and a store that fails to take them loses those lines, never a query.
 */
export class DeploymentLogs {
  /** This replica, as the lines name it (`pod`): host, process and a random part (one process may run two apps). */
  readonly pod = `${os.hostname()}-${process.pid}-${randomUUID().slice(0, 6)}`;
  private buffer: NewLogLine[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  /** Lines lost to a full buffer or a failed write: a counter for operators, nothing else. */
  dropped = 0;

  constructor(
    private readonly repository: DeploymentLogsRepository,
    private readonly deployments: { require(tenantId: number, id: number): Promise<unknown> },
    private readonly settings: DeploymentLogsSettings = defaultLogSettings,
  ) {}

  /** Buffers a line; the next flush writes it. Never throws, never waits. */
  write(line: LogLine): void {
    this.buffer.push({
      ...line,
      source: line.branch === defaultBranch ? 'production' : 'dev',
      pod: this.pod,
      at: new Date(),
    });
    if (this.buffer.length > this.settings.maxBuffered) {
      this.dropped += this.buffer.length - this.settings.maxBuffered;
      this.buffer.splice(0, this.buffer.length - this.settings.maxBuffered);
    }
    if (this.timer === null) {
      this.timer = setTimeout(() => void this.flush(), this.settings.flushMs);
      this.timer.unref();
    }
  }

  /** Writes what is buffered (one at a time: lines keep their order). */
  flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const lines = this.buffer;
    this.buffer = [];
    this.flushing = this.flushing.then(() =>
      this.repository.append(lines, this.settings.keepPerDeployment).catch(() => {
        this.dropped += lines.length;
      }),
    );
    return this.flushing;
  }

  /** The newest lines first, filtered by source and replica; cursor paging with `first`/`after`. */
  async list(
    p: Principal,
    deploymentId: number,
    q: Static<typeof DeploymentLogsQuery>,
  ): Promise<Static<typeof DeploymentLogsResponse>> {
    await this.deployments.require(p.tenantId, deploymentId);
    // This replica's own lines are written first, so a caller sees what it has just run.
    await this.flush();
    const limit = q.first ?? 100;
    const before = q.after === undefined ? null : String(cursorId(decodeCursor(q.after, 1)));
    const rows =
      q.container !== undefined && q.container !== 'cubejs-server'
        ? []
        : await this.repository.list({ deploymentId, source: q.source, pod: q.pod, before, limit });
    const page = rows.slice(0, limit);
    const cursor = (id: string) => encodeCursor([Number(id)]);
    return {
      items: page.map((r) => ({
        pod: r.pod,
        date: r.created_at.toISOString(),
        message: r.message,
        source: r.source,
        kind: r.kind,
        level: r.level,
        branchName: r.branch,
        details: r.details,
      })),
      pageInfo: {
        hasNextPage: rows.length > limit,
        hasPreviousPage: before !== null,
        startCursor: page[0] ? cursor(page[0].id) : null,
        endCursor: page.at(-1) ? cursor(page.at(-1)!.id) : null,
      },
    };
  }
}
