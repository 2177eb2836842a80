import { type CubeQuery, getMeta, type Model } from '@tessera/semantic';
import type { FastifyBaseLogger } from 'fastify';
import type { SecretBox } from '../../crypto/secrets.ts';
import { dialectOf } from '../../datasources/dialect.ts';
import type { DriverRegistry } from '../../datasources/registry.ts';
import type { DataSourceSettings, DeploymentRow } from '../../db/schema.ts';
import { DomainError } from '../../errors/domain-errors.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { TenantResolver } from '../tenants/resolver.ts';
import { checkOperation, decideBranch } from './branch.ts';
import type { DataCaller } from './caller.ts';
import { type CompiledLoad, type CompiledSqlApi, compileLoad, compileSqlApi } from './compile.ts';
import { notFound } from './errors.ts';
import type { QueryExecutor } from './executor.ts';
import type { ModelCache } from './model-cache.ts';
import type { DataOperation } from './operations.ts';
import type { Outcome } from './outcome.ts';
import type { BuiltInDeployments, DataLog } from './ports.ts';
import type { PreAggregationMatcher } from './pre-aggregations/matcher.ts';
import { logQuery, logRefusal } from './query-log.ts';
import { type LoadResult, runLoad, runSqlApi, type SqlApiResult, type ViewerTokens } from './run.ts';

/** A SQL-API statement's run: `renew` skips the result cache (a load query says so in `renewQuery`). */
export interface SqlRunOptions {
  renew?: boolean;
}

import type { DataSettings } from './settings.ts';
import type { SharedResults } from './shared-cache.ts';
import { tokenFrom, verifyToken } from './token.ts';

export interface DataServiceDeps {
  deployments: DeploymentsService;
  tenants: TenantResolver;
  secrets: SecretBox;
  models: ModelCache;
  drivers: Pick<DriverRegistry, 'get'>;
  executor: QueryExecutor;
  settings: DataSettings;
  /** Serves queries from built rollups (issue 15 item 5); absent: every query runs raw. */
  preAggregations?: PreAggregationMatcher;
  /** REDIS_URL: the executor's second level, shared by the replicas. */
  shared?: SharedResults;
  /** Account users' OAuth tokens, for data sources that query with them (issue 22 item 6). */
  viewerTokens?: ViewerTokens;
  /** Issue 25 item 1: the deployment's logs, where each query run or refused is written. */
  log?: DataLog;
  /** Issue 25 item 5: each tenant's Usage Analytics deployment, at `id` in the URL. */
  builtIn?: { id: number; deployments: BuiltInDeployments };
}

/**
 * The data service (DESIGN.md "Semantic layer and data API"): who the caller is, then compile
 * under the caller's security context (@tessera/semantic) and run (run.ts) with a typed outcome.
 * It knows nothing of URLs, headers or Cube's wire bodies: the data-API routes shape those, and
 * in-process callers (dashboard widgets, and later chat tools and the renderer) use the outcome.
 */
export class DataService {
  constructor(private readonly deps: DataServiceDeps) {}

  get settings(): DataSettings {
    return this.deps.settings;
  }

  /** The tenant's deployment by id (404 `{error}` when it is not there). */
  async deployment(host: string | undefined, deploymentId: string): Promise<DeploymentRow> {
    const id = Number(deploymentId);
    const builtIn = this.deps.builtIn && deploymentId === String(this.deps.builtIn.id);
    if (!builtIn && (!Number.isInteger(id) || id < 1 || id > 2_147_483_647))
      throw notFound('Deployment not found');
    try {
      const tenant = await this.deps.tenants.resolve(host);
      if (!builtIn) return await this.deps.deployments.require(tenant.id, id);
      const found = await this.deps.builtIn!.deployments.deployment(tenant.id);
      if (!found) throw notFound('Deployment not found');
      return found;
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) throw notFound('Deployment not found');
      throw error;
    }
  }

  /**
   * The caller a data-API token makes (403 `{error}` for a bad token): its security context, and
   * the branch its signed claim grants; a branch the request names never selects one (branch.ts).
   */
  async caller(
    deployment: DeploymentRow,
    authorization: string | undefined,
    requestedBranch: string | undefined,
    operation?: DataOperation,
  ): Promise<DataCaller> {
    const secret = this.deps.secrets.open(deployment.api_secret_enc);
    const { securityContext, grant } = await verifyToken(tokenFrom(authorization), secret);
    if (operation !== undefined) checkOperation(grant, operation);
    return { deployment, securityContext, branch: decideBranch(grant, requestedBranch) };
  }

  async meta(caller: DataCaller, extended: boolean) {
    return getMeta(await this.model(caller), caller.securityContext, { extended });
  }

  /** A Cube query (or several: blending) compiled for the caller, in the deployment's dialect. */
  async compile(caller: DataCaller, query: CubeQuery | CubeQuery[]): Promise<CompiledLoad> {
    return this.logged(caller, 'load', () => this.compileLoadFor(caller, query));
  }

  private async compileLoadFor(caller: DataCaller, query: CubeQuery | CubeQuery[]): Promise<CompiledLoad> {
    const { securityContext } = caller;
    const model = await this.model(caller);
    // a query naming a cube left out for its model errors is told why (model-cache.ts, issue 15)
    const raw = await this.deps.models.guard(model, query, () =>
      compileLoad(model, query, { dialect: dialectOf(caller.deployment), securityContext }),
    );
    const compiled =
      this.deps.preAggregations && !perViewer(caller)
        ? await this.deps.preAggregations.rewrite(caller, model, raw)
        : raw;
    return { ...compiled, modelVersion: this.deps.models.version(model) };
  }

  /** SQL-API text planned for the caller; semantic subqueries a built rollup answers read it. */
  async compileSql(caller: DataCaller, sql: string, timezone?: string): Promise<CompiledSqlApi> {
    return this.logged(caller, 'sql', () => this.planSqlFor(caller, sql, timezone));
  }

  private async planSqlFor(caller: DataCaller, sql: string, timezone?: string): Promise<CompiledSqlApi> {
    const { securityContext } = caller;
    const dialect = dialectOf(caller.deployment);
    const model = await this.model(caller);
    const rollup = perViewer(caller)
      ? undefined
      : ((await this.deps.preAggregations?.sqlApiHook(caller, model)) ?? undefined);
    const compiled = await this.deps.models.guard(model, sql, () =>
      compileSqlApi(model, sql, { dialect, securityContext, timezone, rollup }),
    );
    return { ...compiled, modelVersion: this.deps.models.version(model) };
  }

  /**
   * Runs what was compiled for this caller: the result, or "running" with a handle to await.
   * The caller's `signal` aborting (it went away) cancels the engine query once no other caller
   * waits for it (executor.ts).
   */
  run(caller: DataCaller, compiled: CompiledLoad): Promise<Outcome<LoadResult>>;
  run(caller: DataCaller, compiled: CompiledSqlApi, options?: SqlRunOptions): Promise<Outcome<SqlApiResult>>;
  async run(caller: DataCaller, compiled: CompiledLoad | CompiledSqlApi, options: SqlRunOptions = {}) {
    const startedAt = Date.now();
    const { log } = this.deps;
    let outcome: Outcome<LoadResult | SqlApiResult>;
    try {
      outcome = await (compiled.kind === 'load'
        ? runLoad(this.deps, caller, compiled)
        : runSqlApi(this.deps, caller, compiled, options.renew === true));
    } catch (error) {
      logQuery(log, caller, compiled, startedAt, { error });
      throw error;
    }
    if (outcome.state === 'done') logQuery(log, caller, compiled, startedAt, { result: outcome.result });
    else if (log) {
      // Still running (the continue-wait window passed): the line is written when it ends. Awaiting
      // it here adds no rejection of its own: the execution runs whether or not anyone waits.
      outcome.wait().then(
        (result) => logQuery(log, caller, compiled, startedAt, { result }),
        (error) => logQuery(log, caller, compiled, startedAt, { error }),
      );
    }
    return outcome;
  }

  /** A compile that fails is a refused query: its line says why (query-log.ts decides what it holds). */
  private async logged<T>(caller: DataCaller, what: 'load' | 'sql', compile: () => Promise<T>): Promise<T> {
    try {
      return await compile();
    } catch (error) {
      logRefusal(this.deps.log, caller, what, error);
      throw error;
    }
  }

  /** Opens the replicas' shared result cache (REDIS_URL) at application start. */
  async startUp(log: FastifyBaseLogger): Promise<void> {
    await this.deps.shared?.connect(log);
  }

  private model(caller: DataCaller): Promise<Model> {
    return this.deps.models.get(caller.deployment.id, caller.branch);
  }
}

/**
 * A data source that queries with each viewer's own token (issue 22 item 6) is never answered from
 * a rollup: rollups are built on the data source's own connection, so the rows a warehouse shows
 * each user by who connects would not be theirs.
 */
function perViewer(caller: DataCaller): boolean {
  return (caller.deployment.data_source as DataSourceSettings).oauthIntegrationId !== undefined;
}
