import { createHash } from 'node:crypto';
import { compileModelAsync, formatModelError, type Model, type UnavailableCube } from '@tessera/semantic';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import { ReadCache } from '../../cache/read-cache.ts';
import { modelCompileError } from './errors.ts';
import type { DataLog, ModelFiles } from './ports.ts';

interface Entry {
  /** The healthy part of the model (@tessera/semantic isolate.ts). */
  readonly model: Model;
  readonly errors: string[];
  readonly unavailable: ReadonlyMap<string, UnavailableCube>;
}

/**
 * Compiled data models per deployment and branch, kept until the files change. Migration
 * 0004-data makes every write to `model_files` notify the `deployments` topic of the
 * invalidation bus, so an edit on any replica drops the compiled model everywhere.
 *
 * Issue 15: a model error makes only its cube (and what depends on it) unavailable; the rest of
 * the deployment keeps serving. `get` answers the healthy part of the model, and a query that
 * names an unavailable cube or view is refused with its errors (`guard`): a 400, never SQL that
 * reaches the database with a missing table, never a 5xx.
 */
export class ModelCache {
  private readonly models = new ReadCache<Entry>(10 * 60_000, 1_000);
  /** A hash of the files each model was compiled from: results are keyed by it (run.ts). */
  private readonly versions = new WeakMap<Model, string>();
  private readonly unavailableByModel = new WeakMap<Model, ReadonlyMap<string, UnavailableCube>>();

  constructor(
    private readonly files: ModelFiles,
    bus: InvalidationBus,
    /** Issue 25 item 1: each compile is a build line in the deployment's logs. */
    private readonly log?: DataLog,
  ) {
    bus.subscribe('deployments', () => this.models.clear());
  }

  async get(deploymentId: number, branch: string): Promise<Model> {
    const entry = await this.models.get(`${deploymentId}|${branch}`, async () => {
      const files = await this.files.files(deploymentId, branch);
      const startedAt = Date.now();
      const { errors, isolation } = await compileModelAsync(files);
      this.logBuild(
        deploymentId,
        branch,
        files.length,
        errors.map(formatModelError),
        startedAt,
        isolation.model,
      );
      const { model, unavailable } = isolation;
      this.versions.set(
        model,
        createHash('sha256')
          .update(JSON.stringify(files.map((f) => [f.path, f.content])))
          .digest('hex'),
      );
      this.unavailableByModel.set(model, unavailable);
      return { model, errors: errors.map(formatModelError), unavailable };
    });
    // Nothing healthy is left (every cube broken, or an error no cube can be blamed for in a
    // model without cubes): Cube answers a model that does not compile with its compile errors;
    // they are the model author's text, not server internals.
    if (entry.errors.length > 0 && entry.model.cubes.size === 0)
      throw modelCompileError(`Compile errors:\n${entry.errors.join('\n')}`);
    return entry.model;
  }

  /** Model errors are the model author's text: the line carries them, as the data API answers them. */
  private logBuild(
    deploymentId: number,
    branch: string,
    files: number,
    errors: string[],
    startedAt: number,
    model: Model,
  ): void {
    const served = model.cubes.size + model.views.size;
    this.log?.write({
      deploymentId,
      branch,
      kind: 'build',
      level: errors.length > 0 ? 'error' : 'info',
      message:
        errors.length > 0
          ? `Model of ${branch} built with ${errors.length} error${errors.length > 1 ? 's' : ''} (${served} cubes and views served): ${errors.join('; ')}`
          : `Model of ${branch} built: ${served} cubes and views`,
      details: { trigger: 'data-api', durationMs: Date.now() - startedAt, files, errors },
    });
  }

  /** The version of a model this cache compiled: a model edit changes it. */
  version(model: Model): string {
    return this.versions.get(model) ?? '';
  }

  /** The cubes and views left out of a model this cache compiled, with their errors. */
  unavailable(model: Model): ReadonlyMap<string, UnavailableCube> {
    return this.unavailableByModel.get(model) ?? new Map();
  }

  /**
   * Compiles a query against the healthy model; when that fails and the query names an
   * unavailable cube or view, the caller learns why it is unavailable (file:line, member and
   * message of each error) instead of "not found". `query` is a Cube query or SQL-API text.
   */
  async guard<T>(model: Model, query: unknown, compile: () => T | Promise<T>): Promise<T> {
    try {
      return await compile();
    } catch (error) {
      const named = namedUnavailable(this.unavailable(model), query);
      if (named) throw modelCompileError(unavailableMessage(named));
      throw error;
    }
  }
}

/**
 * The first unavailable cube or view the query names: a member path `cube.member` anywhere in a
 * Cube query (keys too: `order` may be an object), or an identifier of SQL-API text. Only asked
 * once compiling has failed, so a loose match cannot turn a good query away.
 */
export function namedUnavailable(
  unavailable: ReadonlyMap<string, UnavailableCube>,
  query: unknown,
): UnavailableCube | null {
  if (unavailable.size === 0) return null;
  const hit = (text: string): UnavailableCube | null => {
    const lower = text.toLowerCase();
    for (const u of unavailable.values()) {
      const name = u.name.toLowerCase();
      let at = lower.indexOf(name);
      while (at >= 0) {
        const before = lower[at - 1];
        const after = lower[at + name.length];
        if (!(before && /[\w]/.test(before)) && !(after && /\w/.test(after))) return u;
        at = lower.indexOf(name, at + 1);
      }
    }
    return null;
  };
  if (typeof query === 'string') return hit(query);
  const walk = (value: unknown): UnavailableCube | null => {
    if (typeof value === 'string') {
      const dot = value.indexOf('.');
      return dot > 0 ? (unavailable.get(value.slice(0, dot)) ?? null) : null;
    }
    if (Array.isArray(value)) {
      for (const v of value) {
        const found = walk(v);
        if (found) return found;
      }
      return null;
    }
    if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        const found = walk(k) ?? walk(v);
        if (found) return found;
      }
    }
    return null;
  };
  return walk(query);
}

/** "Cube 'x' is unavailable: ..." with each error located (ModelError: file:line, member). */
export function unavailableMessage(u: UnavailableCube): string {
  const what = u.kind === 'view' ? 'View' : 'Cube';
  const why =
    u.through === null
      ? 'its data model has errors'
      : `it depends on '${u.through}', whose data model has errors`;
  return `${what} '${u.name}' is unavailable: ${why}:\n${u.errors.map(formatModelError).join('\n')}`;
}
