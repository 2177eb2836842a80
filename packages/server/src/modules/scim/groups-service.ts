import type { RawBuilder } from 'kysely';
import type { Db } from '../../db/database.ts';
import { invalidValue, ScimError } from './errors.ts';
import { parseFilter } from './filter-parse.ts';
import { filterToSql } from './filter-sql.ts';
import { type GroupRecord, groupResource, type ScimGroupRow, toGroupRecord } from './group-mapping.ts';
import type { GroupColumns, ScimGroupsRepository } from './groups-repository.ts';
import { type ListParams, listResponse, type Sort, sortOf, type Window, windowOf } from './list.ts';
import { type JsonObject, normalizeResource } from './normalize.ts';
import { applyPatch, readOperations } from './patch.ts';
import { checkIfMatch, isUniqueViolation, parseId, type ScimContext } from './preconditions.ts';
import { excludes, type Projection, project, readProjection } from './projection.ts';
import type { ScimDb } from './users-repository.ts';
import { asObject, type Found } from './users-service.ts';

const conflict = (name: string) =>
  new ScimError(409, 'uniqueness', `A group with displayName "${name}" already exists`);

/**
 * SCIM Groups (RFC 7644 section 3) over Tessera's global groups; members are users of the
 * account (Tessera groups do not nest).
 */
export class ScimGroupsService {
  constructor(
    private readonly db: Db,
    private readonly groups: ScimGroupsRepository,
  ) {}

  async get(ctx: ScimContext, rawId: string, projection: Projection = {}): Promise<Found> {
    const row = await this.groups.find(ctx.tenantId, parseId(rawId, 'Group'));
    if (!row) throw new ScimError(404, undefined, `Group ${rawId} not found`);
    const [resource] = await this.render(ctx, [row], projection);
    return { resource, version: row.version };
  }

  async list(ctx: ScimContext, params: ListParams) {
    const where = params.filter ? filterToSql('Group', parseFilter(params.filter)) : undefined;
    const window = windowOf(params);
    const projection = readProjection('Group', params.attributes, params.excludedAttributes);
    const total = await this.groups.count(ctx.tenantId, where);
    return listResponse(
      total,
      window,
      await this.page(ctx, where, sortOf('Group', params), window, projection),
    );
  }

  count(ctx: ScimContext, where: RawBuilder<boolean> | undefined) {
    return this.groups.count(ctx.tenantId, where);
  }

  async page(
    ctx: ScimContext,
    where: RawBuilder<boolean> | undefined,
    sort: Sort | undefined,
    window: Window,
    projection: Projection,
  ) {
    if (window.limit === 0) return [];
    return this.render(ctx, await this.groups.list(ctx.tenantId, where, sort, window), projection);
  }

  /** RFC 7644 section 3.3: the group and its members in one transaction. */
  async create(ctx: ScimContext, body: unknown): Promise<Found> {
    const record = toGroupRecord(normalizeResource('Group', asObject(body)));
    let id = 0;
    try {
      await this.db.transaction().execute(async (trx) => {
        const tx = trx as unknown as ScimDb;
        id = await this.groups.insert(
          ctx.tenantId,
          { name: record.name, externalId: record.externalId, document: {} },
          tx,
        );
        await this.store(ctx, id, record, tx);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(record.name);
      throw error;
    }
    return this.get(ctx, String(id));
  }

  /** PUT replaces the members too; omitted members means none (RFC 7644 section 3.5.1). */
  replace(ctx: ScimContext, rawId: string, body: unknown, ifMatch?: string): Promise<Found> {
    const replacement = asObject(body);
    return this.mutate(ctx, rawId, ifMatch, async () => {
      const record = toGroupRecord(normalizeResource('Group', replacement));
      return { ...record, members: record.members ?? [] };
    });
  }

  /** PATCH (RFC 7644 section 3.5.2), applied to the current members; all or nothing. */
  patch(ctx: ScimContext, rawId: string, body: unknown, ifMatch?: string): Promise<Found> {
    const operations = readOperations(body);
    return this.mutate(ctx, rawId, ifMatch, async (row, tx) => {
      const members = (await this.groups.membersOf([row.id], tx)).get(row.id) ?? [];
      const { id: _id, meta: _meta, schemas: _schemas, ...current } = groupResource(row, members, '', true);
      const record = toGroupRecord(normalizeResource('Group', applyPatch('Group', current, operations)));
      return { ...record, members: record.members ?? [] };
    });
  }

  async delete(ctx: ScimContext, rawId: string, ifMatch?: string): Promise<void> {
    const id = parseId(rawId, 'Group');
    await this.db.transaction().execute(async (trx) => {
      const tx = trx as unknown as ScimDb;
      const row = await this.groups.find(ctx.tenantId, id, tx, true);
      if (!row) throw new ScimError(404, undefined, `Group ${rawId} not found`);
      checkIfMatch(ifMatch, row.version);
      await this.groups.delete(ctx.tenantId, id, tx);
    });
  }

  private async mutate(
    ctx: ScimContext,
    rawId: string,
    ifMatch: string | undefined,
    next: (row: ScimGroupRow, tx: ScimDb) => Promise<GroupRecord>,
  ): Promise<Found> {
    const id = parseId(rawId, 'Group');
    let name = '';
    try {
      await this.db.transaction().execute(async (trx) => {
        const tx = trx as unknown as ScimDb;
        const row = await this.groups.find(ctx.tenantId, id, tx, true);
        if (!row) throw new ScimError(404, undefined, `Group ${rawId} not found`);
        checkIfMatch(ifMatch, row.version);
        const record = await next(row, tx);
        name = record.name;
        await this.store(ctx, id, record, tx);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(name);
      throw error;
    }
    return this.get(ctx, rawId);
  }

  /** Writes name, externalId, the member displays the client gave, and the membership. */
  private async store(ctx: ScimContext, id: number, record: GroupRecord, tx: ScimDb) {
    const members = await this.checkMembers(ctx, record.members ?? [], tx);
    const memberDisplay: Record<string, string> = {};
    for (const m of members) if (m.display !== undefined) memberDisplay[String(m.userId)] = m.display;
    const columns: GroupColumns = {
      name: record.name,
      externalId: record.externalId,
      document: { memberDisplay },
    };
    await this.groups.update(ctx.tenantId, id, columns, tx);
    await this.groups.setMembers(id, [...new Set(members.map((m) => m.userId))], tx);
  }

  /**
   * Members are users of the account (RFC 7643 section 4.2: `value` is a member's `id`). An id
   * that names none is 400 invalidValue, in the same words whether it does not exist or belongs
   * to another account, so that the answer tells nothing about other accounts. Values that cannot
   * be ids at all (not decimal integers) are ignored (CONFORMANCE.md "Leniencies").
   */
  private async checkMembers(ctx: ScimContext, members: GroupRecord['members'] & {}, tx: ScimDb) {
    const meant = members.filter((m) => /^\d+$/.test(m.value));
    const candidates = meant.map((m) => Number(m.value)).filter((n) => n <= 2147483647);
    const users = new Set(await this.groups.existingUserIds(ctx.tenantId, [...new Set(candidates)], tx));
    const unknown = meant.filter((m) => !users.has(Number(m.value))).map((m) => `"${m.value}"`);
    if (unknown.length > 0) {
      throw invalidValue(
        `members: ${unknown.join(', ')} ${unknown.length === 1 ? 'is not the id of a user' : 'are not ids of users'} of this account`,
      );
    }
    return meant.map((m) => ({ userId: Number(m.value), display: m.display }));
  }

  private async render(
    ctx: ScimContext,
    rows: ScimGroupRow[],
    projection: Projection,
  ): Promise<JsonObject[]> {
    const members = excludes(projection, 'members')
      ? undefined
      : await this.groups.membersOf(rows.map((r) => r.id));
    return rows.map((row) => project(groupResource(row, members?.get(row.id), ctx.baseUrl), projection));
  }
}
