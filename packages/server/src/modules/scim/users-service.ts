import type { RawBuilder } from 'kysely';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import type { Db } from '../../db/database.ts';
import type { ApiKeysRepository } from '../api-keys/repository.ts';
import { ScimError } from './errors.ts';
import { parseFilter } from './filter-parse.ts';
import { filterToSql } from './filter-sql.ts';
import { type ListParams, listResponse, type Sort, sortOf, type Window, windowOf } from './list.ts';
import { isObject, type JsonObject, normalizeResource } from './normalize.ts';
import { applyPatch, readOperations } from './patch.ts';
import { checkIfMatch, isUniqueViolation, parseId, type ScimContext } from './preconditions.ts';
import { excludes, type Projection, project, readProjection } from './projection.ts';
import {
  type ScimUserRow,
  syntheticEmail,
  toUserRecord,
  type UserRecord,
  userResource,
} from './user-mapping.ts';
import type { ScimDb, ScimUsersRepository, UserColumns } from './users-repository.ts';

export interface Found {
  resource: JsonObject;
  version: string;
}

const conflict = (userName: string) =>
  new ScimError(409, 'uniqueness', `A user with userName "${userName}" already exists`);

/**
 * SCIM Users (RFC 7644 section 3) over Tessera's users: a SCIM user is a user of the account,
 * created with the viewer role. `active: false` deactivates the user and revokes their API keys
 * in the same transaction; uniqueness of userName rests on the store's unique index.
 */
export class ScimUsersService {
  constructor(
    private readonly db: Db,
    private readonly users: ScimUsersRepository,
    private readonly apiKeys: ApiKeysRepository,
    private readonly bus: InvalidationBus,
  ) {}

  async get(ctx: ScimContext, rawId: string, projection: Projection = {}): Promise<Found> {
    const row = await this.users.find(ctx.tenantId, parseId(rawId, 'User'));
    if (!row) throw new ScimError(404, undefined, `User ${rawId} not found`);
    const [resource] = await this.render(ctx, [row], projection);
    return { resource, version: row.version };
  }

  async list(ctx: ScimContext, params: ListParams) {
    const where = params.filter ? filterToSql('User', parseFilter(params.filter)) : undefined;
    const window = windowOf(params);
    const projection = readProjection('User', params.attributes, params.excludedAttributes);
    const total = await this.users.count(ctx.tenantId, where);
    return listResponse(
      total,
      window,
      await this.page(ctx, where, sortOf('User', params), window, projection),
    );
  }

  count(ctx: ScimContext, where: RawBuilder<boolean> | undefined) {
    return this.users.count(ctx.tenantId, where);
  }

  async page(
    ctx: ScimContext,
    where: RawBuilder<boolean> | undefined,
    sort: Sort | undefined,
    window: Window,
    projection: Projection,
  ) {
    if (window.limit === 0) return [];
    return this.render(ctx, await this.users.list(ctx.tenantId, where, sort, window), projection);
  }

  /** RFC 7644 section 3.3. A duplicate userName is 409 uniqueness, also under concurrent requests. */
  async create(ctx: ScimContext, body: unknown): Promise<Found> {
    const record = toUserRecord(normalizeResource('User', asObject(body)));
    const columns = this.columns(record, record.preferredEmail);
    if (await this.users.taken(ctx.tenantId, 'email', columns.email))
      columns.email = syntheticEmail(record.username);
    let id: number;
    try {
      id = await this.users.insert(ctx.tenantId, columns);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (await this.users.taken(ctx.tenantId, 'username', record.username)) throw conflict(record.username);
      // The email went to someone else meanwhile: fall back as if it had been taken before.
      try {
        id = await this.users.insert(ctx.tenantId, { ...columns, email: syntheticEmail(record.username) });
      } catch (again) {
        if (isUniqueViolation(again)) throw conflict(record.username);
        throw again;
      }
    }
    return this.get(ctx, String(id));
  }

  /** PUT (RFC 7644 section 3.5.1): the body replaces every writable attribute. */
  replace(ctx: ScimContext, rawId: string, body: unknown, ifMatch?: string): Promise<Found> {
    const replacement = asObject(body);
    return this.mutate(ctx, rawId, ifMatch, () => replacement);
  }

  /** PATCH (RFC 7644 section 3.5.2): all operations apply, or none (one transaction). */
  patch(ctx: ScimContext, rawId: string, body: unknown, ifMatch?: string): Promise<Found> {
    const operations = readOperations(body);
    return this.mutate(ctx, rawId, ifMatch, (row) => {
      const {
        id: _id,
        meta: _meta,
        groups: _groups,
        schemas: _schemas,
        ...current
      } = userResource(row, undefined, '');
      return applyPatch('User', current, operations);
    });
  }

  async delete(ctx: ScimContext, rawId: string, ifMatch?: string): Promise<void> {
    const id = parseId(rawId, 'User');
    await this.db.transaction().execute(async (trx) => {
      const tx = trx as unknown as ScimDb;
      const row = await this.users.find(ctx.tenantId, id, tx, true);
      if (!row) throw new ScimError(404, undefined, `User ${rawId} not found`);
      checkIfMatch(ifMatch, row.version);
      await this.keepAnAdmin(ctx, row, tx);
      await this.users.delete(ctx.tenantId, id, tx);
    });
    this.bus.publish('credentials');
  }

  private async mutate(
    ctx: ScimContext,
    rawId: string,
    ifMatch: string | undefined,
    next: (row: ScimUserRow) => JsonObject,
  ) {
    const id = parseId(rawId, 'User');
    let username = '';
    try {
      await this.db.transaction().execute(async (trx) => {
        const tx = trx as unknown as ScimDb;
        const row = await this.users.find(ctx.tenantId, id, tx, true);
        if (!row) throw new ScimError(404, undefined, `User ${rawId} not found`);
        checkIfMatch(ifMatch, row.version);
        const record = toUserRecord(normalizeResource('User', next(row)));
        username = record.username;
        let email = record.preferredEmail;
        if (
          email.toLowerCase() !== row.email.toLowerCase() &&
          (await this.users.taken(ctx.tenantId, 'email', email, id, tx))
        ) {
          email = syntheticEmail(record.username);
        }
        if (!record.active) await this.keepAnAdmin(ctx, row, tx);
        await this.users.update(ctx.tenantId, id, this.columns(record, email), tx);
        // Deactivation revokes every credential of the user (DESIGN.md "Identity and access").
        if (!record.active) await this.apiKeys.revokeAllOfUser(id, trx as unknown as Db);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(username);
      throw error;
    }
    // Activation is read by authentication: drop cached credentials after the commit.
    this.bus.publish('credentials');
    return this.get(ctx, rawId);
  }

  /** Deprovisioning must not lock the account out: the last active admin stays. */
  private async keepAnAdmin(ctx: ScimContext, row: ScimUserRow, tx: ScimDb) {
    if (row.role !== 'admin' || row.is_deactivated) return;
    if ((await this.users.countOtherActiveAdmins(ctx.tenantId, row.id, tx)) === 0) {
      throw new ScimError(409, undefined, 'The account must keep at least one active admin');
    }
  }

  private columns(record: UserRecord, email: string): UserColumns {
    return {
      username: record.username,
      email,
      externalId: record.externalId,
      firstName: record.firstName,
      lastName: record.lastName,
      isDeactivated: !record.active,
      document: record.document,
    };
  }

  private async render(ctx: ScimContext, rows: ScimUserRow[], projection: Projection): Promise<JsonObject[]> {
    const groups = excludes(projection, 'groups')
      ? undefined
      : await this.users.groupsOf(rows.map((r) => r.id));
    return rows.map((row) => project(userResource(row, groups?.get(row.id), ctx.baseUrl), projection));
  }
}

export function asObject(body: unknown): JsonObject {
  if (!isObject(body)) throw new ScimError(400, 'invalidSyntax', 'The body must be a JSON object');
  return body;
}
