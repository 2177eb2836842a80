import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { UserAttributeRow, UserAttributeType } from '../../db/schema.ts';
import {
  ConflictError,
  type FieldProblem,
  NotFoundError,
  ValidationError,
} from '../../errors/domain-errors.ts';
import { pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { UserLookup } from './ports.ts';
import type { DefinitionInput, DefinitionWithValue, UserAttributesRepository } from './repository.ts';
import type {
  UserAttribute,
  UserAttributeCreateInput,
  UserAttributesListQuery,
  UserAttributesListResponse,
  UserAttributeUpdateInput,
  UserAttributeValue,
  UserAttributeValueCreateInput,
} from './schemas.ts';
import { userAttributeNamePattern } from './schemas.ts';
import { fitsType, formatValue, readDefault } from './values.ts';

export interface UserAttributesDeps {
  repository: UserAttributesRepository;
  users: UserLookup;
  audit: AuditLog;
}

type View = Static<typeof UserAttribute>;
type ValueView = Static<typeof UserAttributeValue>;

/**
 * User attributes (issue 22 item 3; reference groups User Attributes and User Attribute Values):
 * definitions per account, a value per account user. `attributesOf` is what every security
 * context built for an account user carries at `serviceCloud.userAttributes`
 * (dashboard-data/security-context.ts, tokens/service.ts): the user's own values, else the
 * defaults. Every change is audited in its own transaction.
 */
export class UserAttributesService {
  constructor(private readonly deps: UserAttributesDeps) {}

  async list(
    principal: Principal,
    query: Static<typeof UserAttributesListQuery>,
  ): Promise<Static<typeof UserAttributesListResponse>> {
    const window = pageWindow(query, 1);
    const filter = { name: query.name, type: query.type };
    const [rows, count] = await Promise.all([
      this.deps.repository.list(principal.tenantId, filter, window),
      this.deps.repository.count(principal.tenantId, filter),
    ]);
    const page = toPage(rows, window, (r) => [r.id], attributeView);
    return { ...page, data: page.items, count };
  }

  async create(principal: Principal, input: Static<typeof UserAttributeCreateInput>): Promise<View> {
    const definition: DefinitionInput = {
      name: input.name,
      type: input.type,
      defaultValue: input.defaultValue ?? null,
      description: input.description ?? null,
      displayName: input.displayName ?? null,
    };
    if (!userAttributeNamePattern.test(definition.name))
      throw new ValidationError('The name cannot be used in access policies', [
        { field: 'body/name', message: 'must start with a letter or _ and hold only letters, digits and _' },
      ]);
    checkDefault(definition.type, definition.defaultValue, 'body/defaultValue');
    try {
      return await this.deps.repository.transaction(async (trx) => {
        const row = await this.deps.repository.insert(principal.tenantId, definition, trx);
        const after = attributeView(row);
        await this.deps.audit.record(trx, principal, {
          action: 'user_attribute.create',
          targetType: 'user_attribute',
          targetId: row.id,
          after,
        });
        return after;
      });
    } catch (error) {
      if ((error as { code?: string }).code === '23505')
        throw new ConflictError(
          `A user attribute named ${input.name} already exists`,
          'user_attribute_exists',
        );
      throw error;
    }
  }

  async update(
    principal: Principal,
    id: number,
    input: Static<typeof UserAttributeUpdateInput>,
  ): Promise<View> {
    return this.deps.repository.transaction(async (trx) => {
      const current = await this.require(principal.tenantId, id, trx);
      if (input.defaultValue !== undefined)
        checkDefault(current.type, input.defaultValue, 'body/defaultValue');
      const row = await this.deps.repository.update(principal.tenantId, id, input, trx);
      if (!row) throw new NotFoundError(`User attribute ${id}`, 'user_attribute_not_found');
      const after = attributeView(row);
      await this.deps.audit.record(trx, principal, {
        action: 'user_attribute.update',
        targetType: 'user_attribute',
        targetId: id,
        before: attributeView(current),
        after,
      });
      return after;
    });
  }

  /** Every attribute of the account, with the user's own value and what their context carries. */
  async values(principal: Principal, userId: number): Promise<ValueView[]> {
    await this.requireUser(principal.tenantId, userId);
    const rows = await this.deps.repository.withValuesOf(principal.tenantId, userId);
    return rows.map((r) => valueView(userId, r));
  }

  /** Sets (or, with null, removes) one user's value of one attribute; it must fit the attribute's type. */
  async upsertValue(
    principal: Principal,
    input: Static<typeof UserAttributeValueCreateInput>,
  ): Promise<ValueView> {
    // Ids come as text (the reference) or numbers; one past the store's integers names nothing.
    const userId = Math.min(Number(input.userId), maxId + 1);
    const attributeId = Math.min(Number(input.userAttributeId), maxId + 1);
    const value = input.value ?? null;
    return this.deps.repository.transaction(async (trx) => {
      const problems: FieldProblem[] = [];
      const user = userId > maxId ? undefined : await this.deps.users.find(principal.tenantId, userId, trx);
      if (!user) problems.push({ field: 'body/userId', message: 'is not a user of this account' });
      const attribute =
        attributeId > maxId
          ? undefined
          : await this.deps.repository.find(principal.tenantId, attributeId, trx);
      if (!attribute)
        problems.push({ field: 'body/userAttributeId', message: 'is not a user attribute of this account' });
      else if (value !== null && !fitsType(value, attribute.type))
        problems.push({ field: 'body/value', message: `must be a ${typeWords[attribute.type]}` });
      if (problems.length > 0 || !attribute) throw new ValidationError('The value cannot be set', problems);
      const before = (await this.deps.repository.withValuesOf(principal.tenantId, userId, trx)).find(
        (r) => r.id === attributeId,
      );
      if (value === null) await this.deps.repository.removeValue(userId, attributeId, trx);
      else await this.deps.repository.setValue(userId, attributeId, value, trx);
      const after = valueView(userId, { ...attribute, value });
      await this.deps.audit.record(trx, principal, {
        action: 'user_attribute_value.set',
        targetType: 'user',
        targetId: userId,
        before: { name: attribute.name, value: before?.value ?? null },
        after: { name: attribute.name, value },
      });
      return after;
    });
  }

  /**
   * `serviceCloud.userAttributes` of an account user: every attribute with a default, overridden
   * by the user's own values. Read on every context built, so that a change bites on the next query.
   */
  async attributesOf(tenantId: number, userId: number): Promise<Record<string, unknown>> {
    const rows = await this.deps.repository.withValuesOf(tenantId, userId);
    const attributes: Record<string, unknown> = {};
    for (const row of rows) {
      const value = effectiveValue(row);
      if (value !== undefined) attributes[row.name] = value;
    }
    return attributes;
  }

  /**
   * Spec 4.3 `userAttributeDefinitions`: an embed session's definitions become the account's own
   * (created when missing, in the session's transaction). A stored definition keeps its type and
   * default; a request naming it with another type is refused (the stored values would not fit).
   */
  async stored(tenantId: number, names: string[], db?: Db): Promise<UserAttributeRow[]> {
    return this.deps.repository.named(tenantId, names, db);
  }

  async defineMissing(tenantId: number, definitions: DefinitionInput[], trx: Db): Promise<void> {
    await this.deps.repository.insertMissing(tenantId, definitions, trx);
  }

  private async require(tenantId: number, id: number, db?: Db): Promise<UserAttributeRow> {
    const row = await this.deps.repository.find(tenantId, id, db);
    if (!row) throw new NotFoundError(`User attribute ${id}`, 'user_attribute_not_found');
    return row;
  }

  private async requireUser(tenantId: number, userId: number): Promise<void> {
    if (!(await this.deps.users.find(tenantId, userId)))
      throw new NotFoundError(`User ${userId}`, 'user_not_found');
  }
}

/** The largest id the store holds (PostgreSQL `integer`). */
const maxId = 2_147_483_647;

const typeWords: Record<UserAttributeType, string> = {
  string: 'string',
  number: 'number',
  boolean: 'boolean (true or false)',
  string_array: 'list of strings',
  number_array: 'list of numbers',
};

function checkDefault(type: UserAttributeType, defaultValue: string | null, field: string): void {
  if (defaultValue === null || readDefault(type, defaultValue) !== undefined) return;
  const example =
    type === 'number' ? '42' : type === 'boolean' ? 'true' : type === 'string_array' ? '["a","b"]' : '[1,2]';
  throw new ValidationError('The default does not fit the type', [
    { field, message: `must be a ${typeWords[type]} written as JSON, e.g. ${example}` },
  ]);
}

function effectiveValue(row: DefinitionWithValue): unknown {
  if (row.value !== null && row.value !== undefined) return row.value;
  return row.default_value === null ? undefined : readDefault(row.type, row.default_value);
}

export function attributeView(row: UserAttributeRow): View {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    defaultValue: row.default_value,
    description: row.description,
    displayName: row.display_name,
  };
}

function valueView(userId: number, row: DefinitionWithValue): ValueView {
  return {
    userId,
    userAttributeId: row.id,
    name: row.name,
    type: row.type,
    displayName: row.display_name,
    description: row.description,
    value: row.value ?? null,
    formattedValue: formatValue(effectiveValue(row)),
  };
}
