import type { RawBuilder } from 'kysely';
import type { Filter } from 'scim2-parse-filter';
import type { Db } from '../../db/database.ts';
import type { AuditChange, AuditLog } from '../audit-log/service.ts';
import { invalidSyntax, notFound, uniqueness } from './errors.ts';
import { parseFilter } from './filter-parse.ts';
import { filterToSql } from './filter-sql.ts';
import {
  type ListParams,
  type ListResponse,
  listResponse,
  type Sort,
  sortOf,
  type Window,
  windowOf,
} from './list.ts';
import { isObject, type JsonObject, normalizeResource } from './normalize.ts';
import { applyPatch, readOperations } from './patch.ts';
import { checkIfMatch, isUniqueViolation, parseId, type ScimContext } from './preconditions.ts';
import { excludes, type Projection, project, readProjection } from './projection.ts';
import type { ScimResourceRepository } from './resource-repository.ts';
import type { ScimRow, ScimTable } from './resource-row.ts';
import type { ScimResourceType } from './resource-type.ts';
import type { ResourceKind } from './schema-defs.ts';

export interface Found {
  resource: JsonObject;
  version: string;
}

/** One resource type's endpoints (RFC 7644 section 3), whatever the type: what the routes call. */
export interface ResourceService {
  readonly kind: ResourceKind;
  readonly patchAnswer: 200 | 204;
  get(ctx: ScimContext, id: string, projection?: Projection): Promise<Found>;
  list(ctx: ScimContext, params: ListParams): Promise<ListResponse<JsonObject>>;
  create(ctx: ScimContext, body: unknown): Promise<Found>;
  replace(ctx: ScimContext, id: string, body: unknown, ifMatch?: string): Promise<Found>;
  patch(ctx: ScimContext, id: string, body: unknown, ifMatch?: string): Promise<Found>;
  delete(ctx: ScimContext, id: string, ifMatch?: string): Promise<void>;
  /** The pieces of a list, for POST /.search across types (search.ts). */
  where(filter: Filter): RawBuilder<boolean>;
  sort(params: ListParams): Sort | undefined;
  count(ctx: ScimContext, where: RawBuilder<boolean> | undefined): Promise<number>;
  page(
    ctx: ScimContext,
    where: RawBuilder<boolean> | undefined,
    sort: Sort | undefined,
    window: Window,
    projection: Projection,
  ): Promise<JsonObject[]>;
}

/**
 * A SCIM resource type's endpoints over its table (RFC 7644 section 3), parametrised by its
 * definition (resource-type.ts). Every write is one transaction: PATCH applies all its operations
 * or none, PUT and PATCH lock the row and check If-Match (section 3.14), and the uniqueness key
 * rests on the store's unique index, so that it holds under concurrent requests (409 uniqueness).
 */
export class ScimResourceService<T extends ScimTable, R, Related> implements ResourceService {
  readonly kind: ResourceKind;
  readonly patchAnswer: 200 | 204;

  constructor(
    private readonly db: Db,
    private readonly rows: ScimResourceRepository<T>,
    private readonly type: ScimResourceType<T, R, Related>,
    /** Issue 22 item 5: each write is recorded in its own transaction (a password never). */
    private readonly audit?: Pick<AuditLog, 'record'>,
  ) {
    this.kind = type.kind;
    this.patchAnswer = type.patchAnswer;
  }

  async get(ctx: ScimContext, rawId: string, projection: Projection = {}): Promise<Found> {
    const row = await this.rows.find(ctx.tenantId, parseId(rawId, this.kind));
    if (!row) throw notFound(`${this.kind} ${rawId}`);
    const [resource] = await this.render(ctx, [row], projection);
    return { resource, version: row.version };
  }

  async list(ctx: ScimContext, params: ListParams) {
    const where = params.filter ? this.where(parseFilter(params.filter)) : undefined;
    const window = windowOf(params);
    const projection = readProjection(this.kind, params.attributes, params.excludedAttributes);
    const total = await this.count(ctx, where);
    return listResponse(total, window, await this.page(ctx, where, this.sort(params), window, projection));
  }

  where(filter: Filter) {
    return filterToSql(this.type, filter);
  }

  sort(params: ListParams) {
    return sortOf(this.type, params);
  }

  count(ctx: ScimContext, where: RawBuilder<boolean> | undefined) {
    return this.rows.count(ctx.tenantId, where);
  }

  async page(
    ctx: ScimContext,
    where: RawBuilder<boolean> | undefined,
    sort: Sort | undefined,
    window: Window,
    projection: Projection,
  ) {
    if (window.limit === 0) return [];
    return this.render(ctx, await this.rows.list(ctx.tenantId, where, sort, window), projection);
  }

  /** RFC 7644 section 3.3. */
  async create(ctx: ScimContext, body: unknown): Promise<Found> {
    const record = this.read(asObject(body));
    let id: number;
    try {
      id = await this.insert(ctx, record);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const { column, of } = this.type.unique;
      // Another unique index than the key's refused it: the type may know a second choice.
      const again = (await this.rows.taken(ctx.tenantId, column, of(record)))
        ? undefined
        : this.type.retryCreate?.(record);
      if (again === undefined) throw this.duplicate(record);
      try {
        id = await this.insert(ctx, again);
      } catch (retryError) {
        if (isUniqueViolation(retryError)) throw this.duplicate(record);
        throw retryError;
      }
    }
    return this.get(ctx, String(id));
  }

  /** PUT (RFC 7644 section 3.5.1): the body replaces every writable attribute. */
  replace(ctx: ScimContext, rawId: string, body: unknown, ifMatch?: string): Promise<Found> {
    const replacement = asObject(body);
    return this.mutate(ctx, rawId, ifMatch, async () => replacement);
  }

  /** PATCH (RFC 7644 section 3.5.2), applied to the resource as the type's PATCH rules give it. */
  patch(ctx: ScimContext, rawId: string, body: unknown, ifMatch?: string): Promise<Found> {
    const operations = readOperations(body);
    return this.mutate(ctx, rawId, ifMatch, async (row, tx) => {
      const { id: _id, meta: _meta, schemas: _schemas, ...current } = await this.type.patchBase(row, tx);
      return applyPatch(this.kind, current, operations);
    });
  }

  async delete(ctx: ScimContext, rawId: string, ifMatch?: string): Promise<void> {
    const id = parseId(rawId, this.kind);
    await this.db.transaction().execute(async (tx) => {
      const row = await this.lock(ctx, id, rawId, ifMatch, tx);
      await this.type.beforeDelete?.(ctx, row, tx);
      await this.rows.delete(ctx.tenantId, id, tx);
      await this.record(ctx, tx, { action: 'delete', targetId: id, before: row });
    });
    this.type.afterChange?.();
  }

  private insert(ctx: ScimContext, record: R) {
    return this.db.transaction().execute(async (tx) => {
      const id = await this.type.write({ ctx, record, current: undefined, rows: this.rows, tx });
      await this.record(ctx, tx, { action: 'create', targetId: id, after: record });
      return id;
    });
  }

  /** `scim_user.create`, `scim_group.update`, ...: the target is the account user or group. */
  private async record(ctx: ScimContext, tx: Db, change: Omit<AuditChange, 'targetType'>) {
    if (!this.audit || !ctx.principal) return;
    const kind = this.kind.toLowerCase();
    await this.audit.record(tx, ctx.principal, {
      ...change,
      action: `scim_${kind}.${change.action}`,
      targetType: kind,
    });
  }

  private async mutate(
    ctx: ScimContext,
    rawId: string,
    ifMatch: string | undefined,
    next: (row: ScimRow<T>, tx: Db) => Promise<JsonObject>,
  ): Promise<Found> {
    const id = parseId(rawId, this.kind);
    let record: R | undefined;
    try {
      await this.db.transaction().execute(async (tx) => {
        const current = await this.lock(ctx, id, rawId, ifMatch, tx);
        record = this.read(await next(current, tx));
        await this.type.write({ ctx, record, current, rows: this.rows, tx });
        await this.record(ctx, tx, { action: 'update', targetId: id, before: current, after: record });
      });
    } catch (error) {
      if (isUniqueViolation(error) && record !== undefined) throw this.duplicate(record);
      throw error;
    }
    this.type.afterChange?.();
    return this.get(ctx, rawId);
  }

  private async lock(ctx: ScimContext, id: number, rawId: string, ifMatch: string | undefined, tx: Db) {
    const row = await this.rows.find(ctx.tenantId, id, tx, true);
    if (!row) throw notFound(`${this.kind} ${rawId}`);
    checkIfMatch(ifMatch, row.version);
    return row;
  }

  private read(resource: JsonObject): R {
    return this.type.toRecord(normalizeResource(this.kind, resource));
  }

  private duplicate(record: R) {
    const { attribute, of } = this.type.unique;
    return uniqueness(`A ${this.kind.toLowerCase()} with ${attribute} "${of(record)}" already exists`);
  }

  private async render(ctx: ScimContext, rows: ScimRow<T>[], projection: Projection): Promise<JsonObject[]> {
    const { attribute, load } = this.type.related;
    const ids = rows.map((row) => row.id);
    const related = excludes(projection, attribute) ? undefined : await load(ids, this.db);
    return rows.map((row) =>
      project(this.type.toResource(row, related?.get(row.id), ctx.baseUrl), projection),
    );
  }
}

function asObject(body: unknown): JsonObject {
  if (!isObject(body)) throw invalidSyntax('The body must be a JSON object');
  return body;
}
