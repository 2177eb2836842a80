import { UserError } from '../errors.ts';
import type { Model } from '../model/types.ts';
import type { AccessResolution } from '../security/access.ts';
import { bound, parseDateRange } from './date-range.ts';
import { findMember, resolveMember } from './members.ts';
import { formatLocal, parseLocal, toUtc } from './time.ts';
import {
  FILTER_OPERATORS,
  type FilterNode,
  type FilterOperator,
  type FilterValue,
  type QueryFilter,
  type QueryMember,
} from './types.ts';

const STRING_OPS = new Set([
  'contains',
  'notContains',
  'startsWith',
  'notStartsWith',
  'endsWith',
  'notEndsWith',
]);
const ORDER_OPS = new Set(['gt', 'gte', 'lt', 'lte']);
const DATE_OPS = new Set([
  'inDateRange',
  'notInDateRange',
  'beforeDate',
  'beforeOrOnDate',
  'afterDate',
  'afterOrOnDate',
]);
const NO_VALUES = new Set(['set', 'notSet', 'measureFilter']);

export interface FilterContext {
  readonly model: Model;
  readonly access: AccessResolution;
  readonly timezone: string;
  readonly now: number;
  /** Security filters may use members hidden from the user. */
  readonly trusted: boolean;
}

export function normalizeFilter(f: QueryFilter, ctx: FilterContext): FilterNode {
  if (typeof f !== 'object' || f === null) throw new UserError(`Invalid filter: ${JSON.stringify(f)}`);
  if ('and' in f || 'or' in f) {
    const list = 'and' in f ? f.and : (f as { or: readonly QueryFilter[] }).or;
    if (!Array.isArray(list)) throw new UserError(`Invalid filter: ${JSON.stringify(f)}: and/or need a list`);
    // an empty group is no condition: Cube leaves it out of its parent (BaseGroupFilter)
    const items = Object.freeze(
      list
        .map((x) => normalizeFilter(x, ctx))
        .filter((n) => n.kind === 'member' || n.kind === 'deny' || n.items.length > 0),
    );
    return Object.freeze('and' in f ? { kind: 'and', items } : { kind: 'or', items });
  }
  const path = f.member ?? f.dimension;
  const member = ctx.trusted
    ? trustedMember(ctx.model, path)
    : resolveMember(ctx.model, ctx.access, path, 'any', 'filters');
  if (member.member.kind === 'segment')
    throw new UserError(`Segment ${member.path} cannot be filtered; use segments`);
  const operator = f.operator as FilterOperator;
  if (!(FILTER_OPERATORS as readonly string[]).includes(operator)) {
    throw new UserError(`Operator '${String(f.operator)}' is not supported for filter on ${member.path}`);
  }
  const type = valueType(member);
  const refuse = () => {
    throw new UserError(
      `Operator '${operator}' is not supported for filter on ${member.path} of type ${type}`,
    );
  };
  if (STRING_OPS.has(operator) && type !== 'string') refuse();
  if (ORDER_OPS.has(operator) && type !== 'number' && type !== 'time') refuse();
  if (DATE_OPS.has(operator) && type !== 'time') refuse();
  if (operator === 'measureFilter' && member.member.kind !== 'measure') refuse();
  const raw = f.values ?? [];
  if (!Array.isArray(raw)) throw new UserError(`Filter on ${member.path}: values must be an array`);
  if (!NO_VALUES.has(operator) && raw.length === 0) {
    throw new UserError(`Filter on ${member.path} with operator '${operator}' needs values`);
  }
  const values = DATE_OPS.has(operator)
    ? dateValues(operator, raw, member.path, ctx)
    : raw.map((v) => convert(v, type, member.path, ctx));
  return Object.freeze({ kind: 'member', member, operator, values: Object.freeze(values) });
}

function trustedMember(model: Model, path: unknown): QueryMember {
  const m = typeof path === 'string' ? findMember(model, path) : null;
  if (!m) throw new UserError(`Unknown member in access policy: ${String(path)}`);
  return m;
}

export function valueType(m: QueryMember): string {
  const member = m.member;
  if (member.kind === 'dimension') return member.type;
  if (member.kind === 'measure') {
    return member.type === 'string' || member.type === 'time' || member.type === 'boolean'
      ? member.type
      : 'number';
  }
  return 'boolean';
}

function convert(v: unknown, type: string, path: string, ctx: FilterContext): FilterValue {
  if (v === null) return null;
  if (type === 'number') {
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
    if (!Number.isFinite(n))
      throw new UserError(`Invalid number value ${JSON.stringify(v)} for filter on ${path}`);
    return n;
  }
  if (type === 'boolean') {
    if (v === true || v === 'true' || v === 1 || v === '1') return true;
    if (v === false || v === 'false' || v === 0 || v === '0') return false;
    throw new UserError(`Invalid boolean value ${JSON.stringify(v)} for filter on ${path}`);
  }
  if (type === 'time') {
    const parsed = typeof v === 'string' ? parseLocal(v, ctx.timezone) : null;
    if (!parsed) throw new UserError(`Invalid date value ${JSON.stringify(v)} for filter on ${path}`);
    return { instant: formatLocal(toUtc(parsed.local, ctx.timezone)) };
  }
  if (typeof v === 'object') throw new UserError(`Invalid value ${JSON.stringify(v)} for filter on ${path}`);
  return String(v);
}

/**
 * Date operators take dates in the query time zone; they are turned into UTC instants because
 * time columns hold UTC (Cube's convention), so the comparison stays on the raw column and
 * indexes remain usable.
 */
function dateValues(op: string, raw: readonly unknown[], path: string, ctx: FilterContext): FilterValue[] {
  const utc = (local: number) => ({ instant: formatLocal(toUtc(local, ctx.timezone)) });
  if (op === 'inDateRange' || op === 'notInDateRange') {
    const range = parseDateRange(raw.length === 1 ? raw[0] : raw, ctx.timezone, ctx.now);
    return [utc(range.from), utc(range.to)];
  }
  if (raw.length !== 1 || typeof raw[0] !== 'string') {
    throw new UserError(`Filter on ${path} with operator '${op}' needs exactly one date value`);
  }
  const side = op === 'beforeDate' || op === 'afterOrOnDate' ? 'from' : 'to';
  return [utc(bound(raw[0], ctx.timezone, ctx.now, side))];
}

/** True when the filter tree touches a measure (it belongs in HAVING). */
export function isMeasureFilter(node: FilterNode): boolean {
  if (node.kind === 'member')
    return node.member.member.kind === 'measure' && node.operator !== 'measureFilter';
  if (node.kind === 'deny') return false;
  const flags = node.items.map(isMeasureFilter);
  if (flags.some(Boolean) && !flags.every(Boolean)) {
    throw new UserError('You cannot use dimension and measure in same condition');
  }
  return flags.length > 0 && flags[0];
}
