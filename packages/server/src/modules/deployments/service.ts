import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import { ReadCache } from '../../cache/read-cache.ts';
import { randomToken, type SecretBox } from '../../crypto/secrets.ts';
import type { ConnectionTest } from '../../datasources/connection-test.ts';
import { WarehouseUnavailableError } from '../../datasources/driver.ts';
import { referencesIn } from '../../datasources/env-references.ts';
import type { IntrospectedTable } from '../../datasources/introspect.ts';
import { type DataSourceBody, kindOf } from '../../datasources/kinds/index.ts';
import type { Db } from '../../db/database.ts';
import type { DataSourceSettings, DeploymentRow, EnvironmentRow } from '../../db/schema.ts';
import { ConflictError, DomainError, NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { DeploymentSettings } from './lifecycle-schemas.ts';
import type { DeploymentsRepository } from './repository.ts';
import type {
  CreateDeploymentBody,
  Deployment,
  DeploymentsListResponse,
  Environment,
  UpdateDeploymentBody,
} from './schemas.ts';

export interface DeploymentsServiceDeps {
  repository: DeploymentsRepository;
  secrets: SecretBox;
  /** Public base URL of this server, e.g. `http://127.0.0.1:4000`. */
  publicUrl: () => string;
  bus: InvalidationBus;
  /**
   * The env variables a deployment has, for the `${NAME}` references of its data source
   * (datasources/env-references.ts); absent: references are not checked.
   */
  variables?: { names(deploymentId: number): Promise<ReadonlySet<string>> };
  /** Connects to a data source to test it (datasources/registry.ts); absent: nothing is tested. */
  connections?: {
    test(deploymentId: number | null, settings: DataSourceSettings): Promise<ConnectionTest>;
    introspect(deployment: DeploymentRow): Promise<IntrospectedTable[]>;
  };
  /** Issue 22 item 5: each change is recorded in its own transaction (the password never). */
  audit: Pick<AuditLog, 'record'>;
  /**
   * The account's OAuth integrations, for a data source that queries with each viewer's token
   * (`oauthIntegrationId`, issue 22 item 6); absent: such a setting is refused.
   */
  oauthIntegrations?: { exists(tenantId: number, id: number): Promise<boolean> };
}

export const defaultBasePath = '/cubejs-api';

export type DeploymentsPage = Static<typeof DeploymentsListResponse>;

/**
 * Deployments are read on nearly every request (lists, scope checks, data queries) and change
 * rarely, so reads are cached until the invalidation bus announces a change (any replica's write).
 */
export class DeploymentsService {
  /** Whole list responses: the list is read on every dashboard load and changes rarely. */
  private readonly pages = new ReadCache<DeploymentsPage>(30_000, 1_000);
  private readonly rows = new ReadCache<DeploymentRow | undefined>(
    30_000,
    10_000,
    (row) => row !== undefined,
  );

  constructor(private readonly deps: DeploymentsServiceDeps) {
    deps.bus.subscribe('deployments', () => {
      this.pages.clear();
      this.rows.clear();
    });
  }

  list(principal: Principal, query: PageQuery): Promise<DeploymentsPage> {
    const window = pageWindow(query, 1);
    const { tenantId, deploymentIds } = principal;
    return this.pages.get(`${tenantId}|${deploymentIds}|${JSON.stringify(window)}`, async () => {
      const [rows, total] = await Promise.all([
        this.deps.repository.list(tenantId, deploymentIds, window),
        this.deps.repository.count(tenantId, deploymentIds),
      ]);
      const page = toPage(
        rows,
        window,
        (r) => [r.id],
        (r) => this.view(r),
      );
      return {
        ...page,
        data: page.items,
        count: total,
        pagination: { total, offset: window.mode === 'offset' ? window.offset : 0, limit: window.size },
      };
    });
  }

  async get(principal: Principal, id: number): Promise<Static<typeof Deployment>> {
    return this.view(await this.require(principal.tenantId, id));
  }

  /**
   * The stored row, with secrets still sealed; for modules that run queries. Inside a transaction
   * (`db`) the row is read through it, past the cache: PGlite has one connection, which the
   * transaction holds, so a cached load running on the pool would wait for it forever.
   */
  async require(tenantId: number, id: number, db?: Db): Promise<DeploymentRow> {
    const row = db
      ? await this.deps.repository.find(tenantId, id, db)
      : await this.rows.get(`${tenantId}|${id}`, () => this.deps.repository.find(tenantId, id));
    if (!row) throw new NotFoundError(`Deployment ${id}`, 'deployment_not_found');
    return row;
  }

  /**
   * A deployment starts with its production environment on `main`, created in the same transaction.
   * A data source given is connected to first: one that answers makes the deployment `ready`, one
   * that does not is still saved (a warehouse may come up later) as `databases`, the reference's
   * step for "connect your database", with the failed test in the answer to say what is wrong.
   */
  async create(
    principal: Principal,
    input: Static<typeof CreateDeploymentBody>,
    /** `POST /build/api/v1/deployments` (the reference's Deployment Creation): where onboarding starts. */
    startAt?: { creationStep: string; via: 'build' },
  ) {
    // A new deployment has no env variables yet: set them, then reference them in an update.
    if (input.dataSource) await this.checkReferences(input.dataSource, null);
    if (input.dataSource) await this.checkIntegration(principal.tenantId, input.dataSource);
    const dataSource = this.sealDataSource(input.dataSource ?? { type: 'duckdb', path: ':sample:' });
    const connection = input.dataSource ? await this.deps.connections?.test(null, dataSource) : undefined;
    const values = {
      tenantId: principal.tenantId,
      name: input.name.trim(),
      dataSource,
      apiSecretEnc: this.deps.secrets.seal(randomToken(32)),
      basePath: input.basePath ?? defaultBasePath,
      creationStep: startAt?.creationStep ?? (connection && !connection.ok ? 'databases' : 'ready'),
    };
    const row = await this.deps.repository.transaction(async (trx) => {
      const created = await this.deps.repository.insert(values, trx);
      await this.deps.repository.addEnvironment(
        { deploymentId: created.id, type: 'production', branch: 'main', userId: null },
        trx,
      );
      await this.deps.audit.record(trx, principal, {
        action: 'deployment.create',
        targetType: 'deployment',
        targetId: created.id,
        after: { ...this.view(created), ...(startAt ? { via: startAt.via } : {}) },
      });
      return created;
    });
    this.deps.bus.publish('deployments');
    return { ...this.view(row), ...(connection ? { connection } : {}) };
  }

  async update(principal: Principal, id: number, input: Static<typeof UpdateDeploymentBody>) {
    const current = await this.require(principal.tenantId, id);
    let dataSource: DataSourceSettings | undefined;
    let connection: ConnectionTest | undefined;
    if (input.dataSource) {
      dataSource = await this.editedDataSource(current, input.dataSource);
      connection = await this.deps.connections?.test(id, dataSource);
    }
    const row = await this.deps.repository.transaction(async (trx) => {
      const updated = await this.deps.repository.update(
        principal.tenantId,
        id,
        {
          name: input.name?.trim(),
          dataSource,
          basePath: input.basePath,
          creationStep: connection ? this.stepAfter(current, connection) : undefined,
        },
        trx,
      );
      if (updated)
        await this.deps.audit.record(trx, principal, {
          action: 'deployment.update',
          targetType: 'deployment',
          targetId: id,
          before: this.view(current),
          after: this.view(updated),
        });
      return updated;
    });
    this.deps.bus.publish('deployments');
    if (!row) throw new NotFoundError(`Deployment ${id}`, 'deployment_not_found');
    return { ...this.view(row), ...(connection ? { connection } : {}) };
  }

  /**
   * Tests a deployment's data source: the saved one, or edits of it not yet saved (`input`, whose
   * omitted password means the saved one). A passing test of the saved source makes a deployment
   * waiting at `databases` `ready`.
   */
  async testDataSource(principal: Principal, id: number, input?: DataSourceBody) {
    const current = await this.require(principal.tenantId, id);
    const settings = input
      ? await this.editedDataSource(current, input, 'body/dataSource')
      : (current.data_source as DataSourceSettings);
    const result = await this.connections().test(id, settings);
    const step = input ? undefined : this.stepAfter(current, result);
    if (step !== undefined && step !== current.creation_step) {
      await this.deps.repository.update(principal.tenantId, id, { creationStep: step });
      this.deps.bus.publish('deployments');
    }
    return result;
  }

  /** Tests settings for a deployment not created yet (the "Test connection" step of a new one). */
  async testNewDataSource(_principal: Principal, input: DataSourceBody) {
    await this.checkReferences(input, null, 'body');
    return this.connections().test(null, this.sealDataSource(input, undefined, 'body'));
  }

  /** The data source's schemas, tables, columns and keys, as its connection sees them. */
  async tables(principal: Principal, id: number) {
    const deployment = await this.require(principal.tenantId, id);
    const tables = await this.connections()
      .introspect(deployment)
      .catch((error) => {
        if (!(error instanceof WarehouseUnavailableError)) throw error;
        throw Object.assign(
          new DomainError(
            'warehouse_unavailable',
            "The deployment's data source cannot be reached: test its connection to see why",
          ),
          { cause: error },
        );
      });
    const schemas = new Map<string, IntrospectedTable[]>();
    for (const t of tables) schemas.set(t.schema, [...(schemas.get(t.schema) ?? []), t]);
    return { schemas: [...schemas].map(([name, list]) => ({ name, tables: list })) };
  }

  private connections() {
    if (!this.deps.connections) throw new Error('No connection tester was given to the deployments service');
    return this.deps.connections;
  }

  /** The demo keeps its mark (seeding finds it by it); any other follows its last test. */
  private stepAfter(current: DeploymentRow, test: ConnectionTest): string | undefined {
    if (current.creation_step === 'demo') return undefined;
    return test.ok ? 'ready' : 'databases';
  }

  private async editedDataSource(current: DeploymentRow, input: DataSourceBody, prefix = 'body/dataSource') {
    await this.checkReferences(input, current.id, prefix);
    await this.checkIntegration(current.tenant_id, input, prefix);
    const previous = current.data_source as DataSourceSettings;
    // Omitting a secret keeps the stored one, so a settings form need not echo secrets back.
    return this.sealDataSource(input, previous.type === input.type ? previous : undefined, prefix);
  }

  /**
   * `GET .../settings` (issue 25 item 1): the reference's DeploymentSettings. Tessera hosts each
   * deployment itself, from one default branch, with the SQL API and rollups always on; the
   * values it has no notion of (custom domains, release channels) are null or fixed.
   */
  async settings(principal: Principal, id: number): Promise<Static<typeof DeploymentSettings>> {
    const row = await this.require(principal.tenantId, id);
    return {
      id: row.id,
      name: row.name,
      template: 'single',
      cloudProvider: 'cubecloud',
      creationStep: row.creation_step as Static<typeof DeploymentSettings>['creationStep'],
      creationMethod: null,
      deployMode: null,
      deploymentUrl: this.dataUrl(row),
      releaseChannel: 'release',
      releaseChannelVersion: null,
      deployBranchName: 'main',
      deployBranchReadOnly: false,
      deployBranchMergeAllowed: true,
      deployProjectRoot: '/',
      isCubeSqlEnabled: true,
      isSupportPreAggregations: true,
      region: null,
      customDomain: null,
      autoDomain: null,
      basePath: row.base_path,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }

  /**
   * The onboarding step (the reference's advance and reset). The seeded demo deployment keeps its
   * `demo` mark (seeding and the model directory find it by it): its step does not move (409).
   */
  async setCreationStep(principal: Principal, id: number, step: string) {
    const row = await this.deps.repository.transaction(async (trx) => {
      const current = await this.deps.repository.find(principal.tenantId, id, trx);
      if (!current) throw new NotFoundError(`Deployment ${id}`, 'deployment_not_found');
      if (current.creation_step === 'demo')
        throw new ConflictError(
          'The demo deployment keeps its demo step: its onboarding does not move',
          'demo_deployment',
        );
      const updated = await this.deps.repository.update(principal.tenantId, id, { creationStep: step }, trx);
      if (!updated) throw new NotFoundError(`Deployment ${id}`, 'deployment_not_found');
      await this.deps.audit.record(trx, principal, {
        action: 'deployment.creation_step',
        targetType: 'deployment',
        targetId: id,
        before: { creationStep: current.creation_step },
        after: { creationStep: step },
      });
      return updated;
    });
    this.deps.bus.publish('deployments');
    return this.view(row);
  }

  async delete(principal: Principal, id: number) {
    await this.deps.repository.transaction(async (trx) => {
      const current = await this.deps.repository.find(principal.tenantId, id, trx);
      if (!current || !(await this.deps.repository.delete(principal.tenantId, id, trx)))
        throw new NotFoundError(`Deployment ${id}`, 'deployment_not_found');
      await this.deps.audit.record(trx, principal, {
        action: 'deployment.delete',
        targetType: 'deployment',
        targetId: id,
        before: this.view(current),
      });
    });
    this.deps.bus.publish('deployments');
    return { success: true };
  }

  async environments(principal: Principal, id: number, query: PageQuery & { type?: string }) {
    const deployment = await this.require(principal.tenantId, id);
    const window = pageWindow(query, 1);
    const [rows, total] = await Promise.all([
      this.deps.repository.listEnvironments(id, query.type, window),
      this.deps.repository.countEnvironments(id, query.type),
    ]);
    const page = toPage(
      rows,
      window,
      (r) => [r.id],
      (r) => this.environmentView(deployment, r),
    );
    return {
      ...page,
      data: page.items,
      pagination: { total, offset: window.mode === 'offset' ? window.offset : 0, limit: window.size },
    };
  }

  dataUrl(row: Pick<DeploymentRow, 'id' | 'base_path'>): string {
    return `${this.deps.publicUrl()}/data/${row.id}${row.base_path}`;
  }

  /**
   * Every `${NAME}` a saved data source uses must name one of the deployment's env variables, so
   * that a typo is a 400 naming it now rather than a failed connection at the first query.
   */
  private async checkReferences(
    input: DataSourceBody,
    deploymentId: number | null,
    prefix = 'body/dataSource',
  ) {
    if (!this.deps.variables) return;
    const kind = kindOf(input);
    const used = referencesIn(Object.fromEntries(kind.referencingFields.map((f) => [f, input[f]])));
    if (used.length === 0) return;
    const names = deploymentId === null ? new Set<string>() : await this.deps.variables.names(deploymentId);
    const missing = used.filter((u) => !names.has(u.name));
    if (missing.length === 0) return;
    const who =
      deploymentId === null
        ? 'a new deployment does not have yet'
        : `deployment ${deploymentId} does not have`;
    throw new ValidationError(
      `Unknown env variable ${[...new Set(missing.map((m) => m.name))].map((n) => `\${${n}}`).join(', ')}`,
      missing.map((m) => ({
        field: `${prefix}/${m.field}`,
        message: `names env variable ${m.name}, which ${who}`,
      })),
    );
  }

  /** A data source querying with viewers' tokens names a PostgreSQL source and an integration of the account. */
  private async checkIntegration(tenantId: number, input: DataSourceBody, prefix = 'body/dataSource') {
    const id = (input as { oauthIntegrationId?: number | null }).oauthIntegrationId;
    if (id === undefined || id === null) return;
    const field = `${prefix}/oauthIntegrationId`;
    if (input.type !== 'postgres')
      throw new ValidationError('Only a PostgreSQL data source queries with viewers’ OAuth tokens', [
        { field, message: 'is for type postgres only' },
      ]);
    if (!(await this.deps.oauthIntegrations?.exists(tenantId, id)))
      throw new ValidationError(`Unknown OAuth integration ${id}`, [
        { field, message: 'is not an OAuth integration of this account' },
      ]);
  }

  /**
   * The settings as stored: the kind's own checks (a required host, a path inside the data
   * directory) as 400s naming the field, its defaults, and each secret sealed; an omitted secret
   * keeps the one `previous` (the same kind's saved settings) holds.
   */
  private sealDataSource(
    input: DataSourceBody,
    previous?: DataSourceSettings,
    prefix = 'body/dataSource',
  ): DataSourceSettings {
    const kind = kindOf(input);
    const problems = kind.problems(input);
    if (problems.length > 0) {
      throw new ValidationError(
        `Invalid ${kind.label} data source: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
        problems.map((p) => ({ field: `${prefix}/${p.field}`, message: p.message })),
      );
    }
    const settings: DataSourceSettings = {
      ...(kind.normalize ? kind.normalize(input) : input),
      type: kind.type,
    };
    for (const field of kind.secretFields) {
      const value = settings[field];
      delete settings[field];
      if (typeof value === 'string' && value !== '') settings[`${field}Enc`] = this.deps.secrets.seal(value);
      else if (previous?.[`${field}Enc`] !== undefined) settings[`${field}Enc`] = previous[`${field}Enc`];
    }
    // Issue 22 item 6: stored only when set (null clears it).
    if (settings.oauthIntegrationId === null || settings.oauthIntegrationId === undefined)
      delete settings.oauthIntegrationId;
    return settings;
  }

  private view(row: DeploymentRow): Static<typeof Deployment> {
    const stored = row.data_source as DataSourceSettings;
    const source = Object.fromEntries(Object.entries(stored).filter(([field]) => !/Enc$/.test(field)));
    return {
      id: row.id,
      name: row.name,
      deploymentUrl: this.dataUrl(row),
      creationStep: row.creation_step as Static<typeof Deployment>['creationStep'],
      dataSource: { ...source, ...secretFlags(stored) } as Static<typeof Deployment>['dataSource'],
      basePath: row.base_path,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }

  private environmentView(deployment: DeploymentRow, row: EnvironmentRow): Static<typeof Environment> {
    const url = new URL(this.deps.publicUrl());
    return {
      id: String(row.id),
      type: row.type,
      branch: row.branch,
      user: row.user_id === null ? null : String(row.user_id),
      api_credentials: [
        { type: 'rest', version: 1, url: this.dataUrl(deployment), host: null, port: null, database: null },
        {
          type: 'sql',
          version: 1,
          url: `${this.dataUrl(deployment)}/v1/cubesql`,
          host: url.hostname,
          port: null,
          database: null,
        },
      ],
    };
  }
}

/**
 * Whether each sealed secret is saved, never the secret: `hasPassword` for the kinds with a
 * password or no secret (as before), `has<Field>` for another secret (Athena's `hasSecretAccessKey`).
 */
function secretFlags(stored: DataSourceSettings): Record<string, boolean> {
  const others = kindOf(stored).secretFields.filter((field) => field !== 'password');
  if (others.length === 0) return { hasPassword: stored.passwordEnc !== undefined };
  return Object.fromEntries(
    others.map((field) => [
      `has${field[0]!.toUpperCase()}${field.slice(1)}`,
      stored[`${field}Enc`] !== undefined,
    ]),
  );
}
