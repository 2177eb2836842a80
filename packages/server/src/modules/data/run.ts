import { type CompiledQuery, formatRow, inferColumnType, sqlApiValue } from '@tessera/semantic';
import type { Driver } from '../../datasources/driver.ts';
import type { DriverRegistry, ViewerCredential } from '../../datasources/registry.ts';
import type { DataSourceSettings } from '../../db/schema.ts';
import type { DataCaller } from './caller.ts';
import type { CompiledLoad, CompiledSqlApi, QueryType } from './compile.ts';
import { driverError, engineError } from './engine-errors.ts';
import { DataApiError } from './errors.ts';
import type { QueryExecutor, QueryResult, StartContext } from './executor.ts';
import { combine, type Outcome } from './outcome.ts';
import type { RollupUse } from './pre-aggregations/use.ts';
import type { DataSettings } from './settings.ts';
import { contextKey } from './token.ts';

/** The rows of one part of a Cube query, formatted as the data API answers them. */
export interface PartResult {
  compiled: CompiledQuery;
  rows: Record<string, unknown>[];
  /** Rows without limit and offset, when the query asked for `total`. */
  total: number | null;
  refreshedAt: Date;
  /** The rollup that answered it, if one did. */
  rollup?: RollupUse;
}

export interface LoadResult {
  kind: 'load';
  queryType: QueryType;
  parts: PartResult[];
}

export interface SqlApiColumn {
  name: string;
  column_type: string;
}

/** A SQL-API answer: the columns with their SQL-API types, rows of text values. */
export interface SqlApiResult {
  kind: 'sql';
  columns: SqlApiColumn[];
  rows: (string | null)[][];
  refreshedAt: Date;
}

/**
 * Account users' OAuth access tokens (modules/oauth), for a data source that queries with each
 * viewer's own token (`oauthIntegrationId`, issue 22 item 6).
 */
export interface ViewerTokens {
  /** The user's access token, refreshed first when near expiry; null when they have not connected. */
  accessToken(tenantId: number, userId: number, integrationId: number): Promise<string | null>;
  /** The integration's name, for the message that asks the user to connect; null when it is gone. */
  integrationName(tenantId: number, integrationId: number): Promise<string | null>;
}

export interface RunDeps {
  drivers: Pick<DriverRegistry, 'get'>;
  /** Absent: a data source set to query with viewers' tokens refuses every query. */
  viewerTokens?: ViewerTokens;
  executor: QueryExecutor;
  settings: DataSettings;
}

/** One statement the executor runs once per key: the cache and in-flight sharing key it. */
interface Statement {
  key: string;
  renew: boolean;
  freshMs: number;
  start(context: StartContext): Promise<Omit<QueryResult, 'refreshedAt'>>;
}

/**
 * The key of a result: what ran (the kind of rows it keeps, SQL, parameters, total SQL), where
 * (deployment, data source), from which model (a model edit re-runs: rows are formatted by its
 * member types too) and for whom (security context without its registered claims). Replicas
 * sharing results through Redis (shared-cache.ts) key them by its hash; the deployment's sealed
 * secret, random per deployment, keeps installations that share one Redis (and number their
 * deployments alike) from answering each other.
 */
function statementKey(
  kind: 'load' | 'sql',
  caller: DataCaller,
  modelVersion: string | undefined,
  sql: string,
  params: unknown,
  total: unknown,
) {
  const { deployment } = caller;
  // Rows read on a viewer's own connection are theirs (the warehouse may filter by who connects).
  const viewer = (deployment.data_source as DataSourceSettings).oauthIntegrationId
    ? (caller.accountUserId ?? null)
    : null;
  return JSON.stringify([
    kind,
    deployment.id,
    deployment.api_secret_enc,
    deployment.data_source,
    modelVersion ?? null,
    sql,
    params,
    total,
    contextKey(caller.securityContext),
    ...(viewer === null ? [] : [viewer]),
  ]);
}

/**
 * Runs compiled queries through the executor (cache, in-flight sharing, continue-wait window,
 * timeout). The only place where a driver runs SQL, and only SQL that @tessera/semantic compiled
 * for this caller: there is no second path to the data. The driver is opened before the
 * continue-wait window starts: a first connection (or generating the sample database) is not the
 * query's running time.
 */
export async function runLoad(
  deps: RunDeps,
  caller: DataCaller,
  compiled: CompiledLoad,
): Promise<Outcome<LoadResult>> {
  const driver = await openDriver(deps, caller);
  const outcomes = await Promise.all(
    compiled.parts.map(({ query, compiled: c, refreshKeyMs, rollup }) =>
      execute(
        deps,
        {
          key: statementKey('load', caller, compiled.modelVersion, c.sql, c.params, c.totalSql?.sql ?? null),
          renew: query.renewQuery === true,
          freshMs: refreshKeyMs ?? deps.settings.defaultRefreshMs,
          start: (context) => loadRows(rollup?.driver ?? driver, c, context),
        },
        caller.signal,
      ),
    ),
  );
  return combine(outcomes, (results) => ({
    kind: 'load' as const,
    queryType: compiled.queryType,
    parts: results.map((r, i) => ({
      compiled: compiled.parts[i].compiled,
      rollup: compiled.parts[i].rollup,
      ...r,
    })),
  }));
}

export async function runSqlApi(
  deps: RunDeps,
  caller: DataCaller,
  compiled: CompiledSqlApi,
  renew = false,
): Promise<Outcome<SqlApiResult>> {
  const driver = await openDriver(deps, caller);
  const { plan } = compiled;
  const outcome = await execute(
    deps,
    {
      key: statementKey('sql', caller, compiled.modelVersion, plan.sql, plan.params, null),
      renew,
      freshMs: deps.settings.defaultRefreshMs,
      start: async (context) => {
        try {
          return { rows: await driver.query(plan.sql, plan.params, context), total: null };
        } catch (error) {
          throw engineError(error);
        }
      },
    },
    caller.signal,
  );
  return combine([outcome], ([result]) => sqlApiResult(compiled, result));
}

/** The deployment's driver; one that cannot open is the warehouse being unavailable (503). */
async function openDriver(deps: RunDeps, caller: DataCaller): Promise<Driver> {
  const viewer = await viewerCredential(deps, caller);
  try {
    return await deps.drivers.get(caller.deployment, viewer);
  } catch (error) {
    throw driverError(error);
  }
}

/**
 * For a data source that queries with each viewer's own OAuth token: the caller's account user
 * and their token, or a 403 that says what to do (connect the integration, named; query as an
 * account user). Never the token itself in an error.
 */
async function viewerCredential(deps: RunDeps, caller: DataCaller): Promise<ViewerCredential | undefined> {
  const stored = (caller.deployment.data_source as DataSourceSettings).oauthIntegrationId;
  if (typeof stored !== 'number') return undefined;
  const integrationId = stored;
  const tenantId = caller.deployment.tenant_id;
  const name = (await deps.viewerTokens?.integrationName(tenantId, integrationId)) ?? null;
  const named = name === null ? `OAuth integration ${integrationId}` : `"${name}"`;
  const userId = caller.accountUserId;
  if (userId === undefined || userId <= 0)
    throw new DataApiError(
      'oauth_user_required',
      `This deployment's data source queries with each viewer's own ${named} account: only an account user ` +
        'can query it (signed in, or with their own API key), not an embed user or a data-API token',
    );
  const token =
    name === null ? null : ((await deps.viewerTokens?.accessToken(tenantId, userId, integrationId)) ?? null);
  if (token === null)
    throw new DataApiError(
      'oauth_connection_required',
      name === null
        ? `This deployment's data source names ${named}, which no longer exists: an admin must change the data source`
        : `Connect your ${named} account to query this deployment: POST /api/v1/user-oauth-tokens/${integrationId}/initiate`,
    );
  return { userId, password: token };
}

/** `signal`: the caller went away (its HTTP client closed the connection), executor.ts. */
function execute(deps: RunDeps, s: Statement, signal: AbortSignal | undefined) {
  return deps.executor.run(s.key, { renew: s.renew, freshMs: s.freshMs }, s.start, signal);
}

async function loadRows(driver: Driver, c: CompiledQuery, context: StartContext) {
  const [raw, total] = await Promise.all([
    driver.query(c.sql, c.params, context),
    c.totalSql ? driver.query(c.totalSql.sql, c.totalSql.params, context) : Promise.resolve(null),
  ]).catch((error) => {
    throw driverError(error);
  });
  const first = total?.[0];
  return {
    rows: raw.map((r) => formatRow(r, c.columns)),
    total: first ? Number(Object.values(first)[0]) : null,
  };
}

function sqlApiResult({ plan }: CompiledSqlApi, result: QueryResult): SqlApiResult {
  const columns = plan.columns.map((c) => ({
    name: c.name,
    column_type: c.columnType ?? inferColumnType(result.rows.map((r) => r[c.alias])),
  }));
  const rows = result.rows.map((r) =>
    plan.columns.map((c, i) => sqlApiValue(r[c.alias], columns[i].column_type)),
  );
  return { kind: 'sql', columns, rows, refreshedAt: result.refreshedAt };
}
