import { createHash, randomBytes } from 'node:crypto';
import { type Model, type PreAggregation, rollupBuildable, rollupBuildSql } from '@tessera/semantic';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { Driver } from '../../../datasources/driver.ts';
import type { DriverRegistry } from '../../../datasources/registry.ts';
import type { DeploymentRow } from '../../../db/schema.ts';
import type { ModelCache } from '../model-cache.ts';
import { everyMs } from '../refresh.ts';
import { formatUtc, partitionsOf, type Range, toUtcMs } from './partitions.ts';
import type { PreAggregationRepository } from './repository.ts';
import { isSample, type RollupTarget, sampleTarget, sharedTarget } from './targets.ts';

/** Rollups are built from the production model (the branch a token without a branch claim reads). */
export const ROLLUP_BRANCH = 'main';

export interface PreAggregationSettings {
  /** Background refresh interval (TESSERA_PRE_AGGREGATIONS_REFRESH_MS); 0 turns it off. */
  refreshMs: number;
  /** How long a replica holds a deployment's refresh lease while it builds. */
  leaseMs: number;
  /** A replaced table is dropped this long after the swap, for queries still reading it. */
  dropAfterMs: number;
}

export interface RefresherDeps {
  repository: PreAggregationRepository;
  models: Pick<ModelCache, 'get'>;
  drivers: Pick<DriverRegistry, 'get'>;
  dataDir: string;
  settings: PreAggregationSettings;
}

export interface RefreshReport {
  /** False when another replica held the lease. */
  leased: boolean;
  built: string[];
}

/** Cube's default for a rollup without `refresh_key`: check every hour. */
const DEFAULT_EVERY = '1 hour';

/**
 * Builds and refreshes rollups (Cube's refresh worker). Each replica runs a pass every
 * `refreshMs`; per deployment, the replica holding its lease (pre_aggregation_leases, taken in
 * one statement) builds what is due and the others skip it, so no table is built twice. A
 * partition is due when its refresh key value (`every`: the current period; `sql`: the query's
 * answer) or its build SQL changed. A build creates a new versioned table, then moves the pointer
 * in one transaction; readers see either the old table or the new one, never a partial one.
 */
export class PreAggregationRefresher {
  readonly owner = `${process.pid}-${randomBytes(6).toString('hex')}`;
  private readonly targets = new Map<number, { key: string; target: Promise<RollupTarget> }>();
  private timer: NodeJS.Timeout | undefined;
  private first: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | null = null;
  private readonly listeners = new Set<(deploymentId: number) => void>();

  constructor(private readonly deps: RefresherDeps) {}

  /** Called after a pointer moved here (the matcher forgets what it read). */
  onSwap(listener: (deploymentId: number) => void): void {
    this.listeners.add(listener);
  }

  /** Where this deployment's rollups live (opened once per data-source settings). */
  target(deployment: DeploymentRow): Promise<RollupTarget> {
    const key = JSON.stringify(deployment.data_source);
    const hit = this.targets.get(deployment.id);
    if (hit?.key === key) return hit.target;
    const target = (async () => {
      if (isSample(deployment)) {
        await this.deps.drivers.get(deployment); // generates the sample file on first use
        return sampleTarget(this.deps.dataDir);
      }
      return sharedTarget(await this.deps.drivers.get(deployment), this.deps.repository);
    })();
    target.catch(() => this.targets.delete(deployment.id));
    this.targets.set(deployment.id, { key, target });
    return target;
  }

  /** One pass over every deployment; a deployment that fails is logged and the others go on. */
  async refreshAll(log?: FastifyBaseLogger): Promise<void> {
    for (const deployment of await this.deps.repository.deployments()) {
      try {
        await this.refresh(deployment);
      } catch (error) {
        log?.warn({ err: error, deploymentId: deployment.id }, 'pre-aggregation refresh failed');
      }
    }
  }

  /** Builds the deployment's due rollup partitions, if this replica gets the lease. */
  async refresh(deployment: DeploymentRow, now = Date.now()): Promise<RefreshReport> {
    let model: Model;
    try {
      model = await this.deps.models.get(deployment.id, ROLLUP_BRANCH);
    } catch {
      return { leased: false, built: [] }; // a model with errors has nothing to build
    }
    const rollups = [...model.cubes.values()].flatMap((c) =>
      [...c.preAggregations.values()].filter((p) => rollupBuildable(model, p)),
    );
    // nothing to build: open no connection, take no lease, write nothing
    if (rollups.length === 0) return { leased: false, built: [] };
    const target = await this.target(deployment);
    if (target.shared) {
      const until = new Date(now + this.deps.settings.leaseMs);
      if (!(await this.deps.repository.acquire(deployment.id, this.owner, until)))
        return { leased: false, built: [] };
    }
    try {
      const source = await this.deps.drivers.get(deployment);
      const existing = await target.pointers.tables(deployment.id);
      const keep: string[] = [];
      const built: string[] = [];
      for (const p of rollups) {
        const refreshValue = await refreshKeyValue(model, p, source, now);
        const range = await buildRange(p, source);
        const parts: (Range & { id: string })[] | [null] = p.partitionGranularity
          ? partitionsOf(range!, p.partitionGranularity)
          : [null];
        for (const part of parts) {
          const partition = part?.id ?? '';
          keep.push(`${p.cube}.${p.name}.${partition}`);
          const partRange = part ?? range;
          const select = rollupBuildSql(model, p, target.dialect, partRange).sql;
          const current = existing.find(
            (r) => r.cube === p.cube && r.name === p.name && r.partition === partition,
          );
          if (current?.refresh_key_value === refreshValue && current.build_sql === select) continue;
          const table = tableName(p, partition, target.nameRoom);
          for (const statement of target.createStatements(table, select))
            await target.driver.query(statement, []);
          const previous = await target.pointers.swap({
            deployment_id: deployment.id,
            cube: p.cube,
            name: p.name,
            partition,
            table_name: target.qualify(table),
            build_sql: select,
            refresh_key_value: refreshValue,
            range_start: partRange ? formatUtc(partRange.from) : null,
            range_end: partRange ? formatUtc(partRange.to) : null,
          });
          built.push(target.qualify(table));
          for (const l of this.listeners) l(deployment.id);
          if (previous) this.dropLater(target, previous);
        }
      }
      for (const gone of await target.pointers.removeExcept(deployment.id, keep))
        this.dropLater(target, gone);
      if (built.length > 0) for (const l of this.listeners) l(deployment.id);
      return { leased: true, built };
    } finally {
      if (target.shared) await this.deps.repository.release(deployment.id, this.owner);
    }
  }

  private dropLater(target: RollupTarget, table: string) {
    const drop = () => target.driver.query(`DROP TABLE IF EXISTS ${table}`, []).catch(() => undefined);
    if (this.deps.settings.dropAfterMs <= 0) {
      void drop();
      return;
    }
    setTimeout(drop, this.deps.settings.dropAfterMs).unref();
  }

  start(log: FastifyBaseLogger): void {
    const { refreshMs } = this.deps.settings;
    if (refreshMs <= 0) return;
    const tick = () => {
      if (this.running) return;
      this.running = this.refreshAll(log).finally(() => {
        this.running = null;
      });
    };
    this.timer = setInterval(tick, refreshMs);
    this.timer.unref();
    // a first pass soon after start, so that rollups exist before a full interval has passed
    this.first = setTimeout(tick, Math.min(refreshMs, 10_000));
    this.first.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearTimeout(this.first);
    await this.running;
    for (const { target } of this.targets.values()) {
      const t = await target.catch(() => null);
      if (t && !t.shared) await t.driver.close();
    }
    this.targets.clear();
  }
}

/**
 * A refresh key value (Cube's refresh_key): `sql`'s answer, and/or the current `every` period;
 * without either, the cube's `refresh_key.every`, else every hour.
 */
async function refreshKeyValue(
  model: Model,
  p: PreAggregation,
  source: Driver,
  now: number,
): Promise<string> {
  const every =
    p.refreshKey.every ??
    (p.refreshKey.sql ? null : (model.cubes.get(p.cube)?.refreshKey?.every ?? DEFAULT_EVERY));
  const value: Record<string, unknown> = {};
  if (p.refreshKey.sql) {
    const rows = await source.query(p.refreshKey.sql, []);
    value.sql = rows.length === 0 ? null : Object.values(rows[0]).map(textOf);
  }
  const ms = everyMs(every ?? undefined);
  if (ms !== null) value.every = Math.floor(now / ms);
  return JSON.stringify(value);
}

function textOf(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  return String(v);
}

/** `build_range_start`/`build_range_end` run on the source engine; null without them. */
async function buildRange(p: PreAggregation, source: Driver): Promise<Range | null> {
  if (p.buildRangeStart === null || p.buildRangeEnd === null) return null;
  const first = async (sql: string) => {
    const [row] = await source.query(sql, []);
    const value = row ? Object.values(row)[0] : null;
    const ms = toUtcMs(value);
    if (ms === null) throw new Error(`Pre-aggregation ${p.cube}.${p.name}: build range SQL gave no time`);
    return ms;
  };
  const from = await first(p.buildRangeStart);
  const to = await first(p.buildRangeEnd);
  return partitionsOf({ from, to }, p.granularity ?? 'day').reduce<Range | null>(
    (acc, r) => (acc === null ? { from: r.from, to: r.to } : { from: acc.from, to: r.to }),
    null,
  );
}

/**
 * `orders_daily_20240301_<version>`: a new name per build, so a swap never rewrites a table; the
 * rollup's part is cut to fit in `room` characters (the engine's identifier limit).
 */
function tableName(p: PreAggregation, partition: string, room: number): string {
  const version = createHash('sha256')
    .update(`${Date.now()}${randomBytes(8).toString('hex')}`)
    .digest('hex')
    .slice(0, 10);
  const suffix = `${partition ? `_${partition}` : ''}_${version}`;
  const base = `${p.cube}_${p.name}`
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, Math.min(36, room - suffix.length));
  return `${base}${suffix}`;
}

/** Starts the background refresher when the application is ready and stops it when it closes. */
export const preAggregationRefresherPlugin: FastifyPluginAsync<{
  refresher: PreAggregationRefresher;
}> = async (app, { refresher }) => {
  app.addHook('onReady', async () => refresher.start(app.log));
  app.addHook('onClose', () => refresher.stop());
};

/** The refresher's settings; the interval comes from the configuration (config/config.ts). */
export function preAggregationSettings(refreshMs: number): PreAggregationSettings {
  return { refreshMs, leaseMs: 10 * 60_000, dropAfterMs: 5 * 60_000 };
}
