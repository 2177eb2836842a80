import {
  type CompiledQuery,
  type CubeQuery,
  compileQueries,
  formatRow,
  getMeta,
  type Model,
  UserError,
} from '@tessera/semantic';
import type { SecretBox } from '../../crypto/secrets.ts';
import type { Driver } from '../../datasources/driver.ts';
import type { DriverRegistry } from '../../datasources/registry.ts';
import type { DeploymentRow } from '../../db/schema.ts';
import { DomainError } from '../../errors/domain-errors.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { TenantResolver } from '../tenants/resolver.ts';
import { decideBranch } from './branch.ts';
import type { DataCaller } from './caller.ts';
import { runSqlApi } from './cubesql.ts';
import { DataApiError, notFound, userError } from './errors.ts';
import { CONTINUE_WAIT, type QueryExecutor, type QueryResult } from './executor.ts';
import type { ModelCache } from './model-cache.ts';
import { type DataOperation, operationAt } from './operations.ts';
import { refreshIntervalMs } from './refresh.ts';
import type { DataRequest } from './request.ts';
import { addBlendingTime, loadResult, pivotQuery, type QueryType, queryTypes } from './response.ts';
import type { DataSettings } from './settings.ts';
import { contextKey, tokenFrom, verifyToken } from './token.ts';

export interface DataServiceDeps {
  deployments: DeploymentsService;
  tenants: TenantResolver;
  secrets: SecretBox;
  models: ModelCache;
  drivers: DriverRegistry;
  executor: QueryExecutor;
  settings: DataSettings;
}

/**
 * The data API (DESIGN.md "Semantic layer and data API"). Every query is compiled by
 * @tessera/semantic's compileQuery under the caller's security context before any driver sees
 * it; `execute` is the only place a driver is called, so there is no second path to the data.
 */
export class DataService {
  constructor(private readonly deps: DataServiceDeps) {}

  get settings(): DataSettings {
    return this.deps.settings;
  }

  /** Tenant by host, deployment by id and base path, then the token (403 `{error}` on failure). */
  async caller(input: {
    host: string | undefined;
    deploymentId: string;
    path: string;
    authorization: string | undefined;
    /** A branch the client names (`x-tessera-branch`); it never selects one (branch.ts). */
    requestedBranch: string | undefined;
  }): Promise<{ caller: DataCaller; operation: DataOperation }> {
    const id = Number(input.deploymentId);
    if (!Number.isInteger(id) || id < 1 || id > 2_147_483_647) throw notFound('Deployment not found');
    let deployment: DeploymentRow;
    try {
      const tenant = await this.deps.tenants.resolve(input.host);
      deployment = await this.deps.deployments.require(tenant.id, id);
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) throw notFound('Deployment not found');
      throw error;
    }
    const operation = operationAt(input.path, deployment.base_path);
    if (!operation) throw notFound(`Not found: ${input.path}`);
    const secret = this.deps.secrets.open(deployment.api_secret_enc);
    const { securityContext, grant } = await verifyToken(tokenFrom(input.authorization), secret);
    const branch = decideBranch(grant, input.requestedBranch);
    return { caller: { deployment, securityContext, branch }, operation };
  }

  async meta(caller: DataCaller, extended: boolean) {
    const model = await this.model(caller);
    return getMeta(model, caller.securityContext, { extended });
  }

  async load(caller: DataCaller, request: DataRequest) {
    const { model, driver, compiled, queryType } = await this.compile(caller, request);
    if (queryType !== queryTypes.regular && request.queryType !== 'multi') {
      throw userError(`'${queryType}' query type is not supported by the client. Please update the client.`);
    }
    const outcomes = await Promise.all(
      compiled.map(({ query, compiled: c }) => this.execute(caller, model, driver, query, c)),
    );
    // Cube's long polling: the client repeats the request and joins the same executions.
    if (outcomes.includes(CONTINUE_WAIT)) return { error: 'Continue wait' };
    const results = compiled.map(({ compiled: c }, i) => {
      const result = outcomes[i] as QueryResult;
      const rows = queryType === queryTypes.blending ? addBlendingTime(result.rows, c) : result.rows;
      return loadResult(c, queryType, { ...result, rows }, driver.dialect);
    });
    if (request.queryType !== 'multi') return results[0];
    return {
      queryType,
      results,
      pivotQuery: pivotQuery(
        queryType,
        compiled.map((c) => c.compiled.normalizedQuery),
      ),
      slowQuery: false,
    };
  }

  /** `/v1/sql`: the SQL each query compiles to for this caller, in Cube's `{sql: {sql: [text, params]}}`. */
  async sql(caller: DataCaller, request: DataRequest) {
    const { compiled, queryType } = await this.compile(caller, request);
    const entries = compiled.map(({ compiled: c }) => ({
      sql: {
        sql: [c.sql, c.params],
        aliasNameToMember: c.aliases,
        order: c.normalizedQuery.order,
        cacheKeyQueries: [],
        dataSource: 'default',
        external: false,
        preAggregations: [],
        rollupMatchResults: [],
      },
    }));
    return queryType === queryTypes.regular ? entries[0] : entries;
  }

  /** `/v1/dry-run`: the normalised queries without running them. */
  async dryRun(caller: DataCaller, request: DataRequest) {
    const { compiled, queryType } = await this.compile(caller, request);
    const normalizedQueries = compiled.map((c) => ({ ...c.compiled.normalizedQuery, queryType }));
    return {
      queryType,
      normalizedQueries,
      queryOrder: normalizedQueries.map((q) =>
        Object.fromEntries((q.order as [string, string][] | undefined) ?? []),
      ),
      transformedQueries: normalizedQueries.map(() => null),
      pivotQuery: pivotQuery(queryType, normalizedQueries),
    };
  }

  /** `/v1/cubesql` (cubesql.ts): the same caller, model cache, drivers and executor as /v1/load. */
  cubesql(caller: DataCaller, sql: string, timezone?: string) {
    const { drivers, executor, settings } = this.deps;
    return runSqlApi({ model: (c) => this.model(c), drivers, executor, settings }, caller, sql, timezone);
  }

  private model(caller: DataCaller): Promise<Model> {
    return this.deps.models.get(caller.deployment.id, caller.branch);
  }

  private async compile(caller: DataCaller, request: DataRequest) {
    const model = await this.model(caller);
    const driver = await this.deps.drivers.get(caller.deployment);
    const queries = Array.isArray(request.query) ? request.query : [request.query];
    let queryType: QueryType = queries.length > 1 ? queryTypes.blending : queryTypes.regular;
    const compiled: { query: CubeQuery; compiled: CompiledQuery }[] = [];
    try {
      for (const query of queries) {
        const list = compileQueries(model, query, {
          dialect: driver.dialect,
          securityContext: caller.securityContext,
          now: Date.now(),
        });
        if (list.length > 1 || query.timeDimensions?.some((t) => t.compareDateRange !== undefined)) {
          queryType = queryTypes.compare;
        }
        for (const c of list) compiled.push({ query, compiled: c });
      }
    } catch (error) {
      if (error instanceof UserError) throw userError(error.message);
      throw error;
    }
    if (queryType === queryTypes.blending) {
      const grains = new Set(
        compiled.map((c) => c.compiled.normalizedQuery.timeDimensions?.[0]?.granularity),
      );
      if (grains.size > 1) throw userError('Data blending query granularities must match');
      if (grains.has(undefined)) throw userError('Data blending query without granularity is not supported');
    }
    return { model, driver, compiled, queryType };
  }

  /** The one place where a driver runs SQL, and only SQL that compileQuery produced. */
  private execute(caller: DataCaller, model: Model, driver: Driver, query: CubeQuery, c: CompiledQuery) {
    const key = JSON.stringify([
      caller.deployment.id,
      caller.deployment.data_source,
      c.sql,
      c.params,
      c.totalSql?.sql ?? null,
      contextKey(caller.securityContext),
    ]);
    const freshMs = refreshIntervalMs(model, c.resolved, this.deps.settings.defaultRefreshMs);
    return this.deps.executor.run(key, { renew: query.renewQuery === true, freshMs }, async (signal) => {
      const [raw, total] = await Promise.all([
        driver.query(c.sql, c.params, { signal }),
        c.totalSql ? driver.query(c.totalSql.sql, c.totalSql.params, { signal }) : Promise.resolve(null),
      ]);
      const first = total?.[0];
      return {
        rows: raw.map((r) => formatRow(r, c.columns)),
        total: first ? Number(Object.values(first)[0]) : null,
      };
    });
  }
}

export { DataApiError };
