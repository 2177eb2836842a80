import { type RawBuilder, sql } from 'kysely';
import type { Compare, Filter } from 'scim2-parse-filter';
import { invalidFilter } from './errors.ts';
import {
  type Collection,
  collectionOf,
  type Filterable,
  type Operand,
  operandOf,
} from './filter-operands.ts';
import { resolvePath } from './paths.ts';
import { findAttribute } from './schema-defs.ts';

type Value = Compare['compValue'];
type Bool = RawBuilder<boolean>;

/**
 * Translates a parsed filter (RFC 7644 section 3.4.2.2) into an SQL condition on the row `r` of
 * a resource type (filter-operands.ts). Case rules follow RFC 7643 section 2.1 and 7: strings compare case-insensitively
 * unless the attribute is caseExact (id, externalId, member values). Every comparison is
 * null-safe (`coalesce(..., false)`), so that `not` means "does not match".
 */
export function filterToSql(target: Filterable, filter: Filter): Bool {
  return translate(target, filter, undefined);
}

function translate(target: Filterable, f: Filter, within: Collection | undefined): Bool {
  switch (f.op) {
    case 'and':
    case 'or':
      return sql<boolean>`(${sql.join(
        f.filters.map((x) => translate(target, x, within)),
        sql.raw(` ${f.op} `),
      )})`;
    case 'not':
      return sql<boolean>`(not ${translate(target, f.filter, within)})`;
    case '[]': {
      if (within) throw invalidFilter('Value filters cannot be nested');
      const collection = multiValued(target, f.attrPath);
      return collection.exists(translate(target, f.valFilter, collection));
    }
    default:
      return comparison(target, f.op, f.attrPath, f.op === 'pr' ? null : f.compValue, within);
  }
}

function multiValued(target: Filterable, attrPath: string): Collection {
  const path = resolvePath(target.kind, attrPath);
  if (!path || path.sub || !path.attr.multiValued)
    throw invalidFilter(`${attrPath} is not a multi-valued attribute of ${target.kind}`);
  return collectionOf(target, path);
}

function comparison(
  target: Filterable,
  op: string,
  attrPath: string,
  value: Value,
  within: Collection | undefined,
): Bool {
  if (within) {
    const sub = findAttribute(within.def.subAttributes, attrPath);
    if (!sub) throw invalidFilter(`${attrPath} is not a sub-attribute of ${within.def.name}`);
    return compare(within.element(sub), op, value);
  }
  const path = resolvePath(target.kind, attrPath);
  if (!path) throw invalidFilter(`${attrPath} is not an attribute of ${target.kind}`);
  if (path.attr.multiValued) {
    // `emails.value co "x"`: some element matches; `emails co "x"` compares the `value` sub-attribute.
    const collection = collectionOf(target, path);
    const sub = path.sub ?? findAttribute(path.attr.subAttributes, 'value');
    if (!sub) throw invalidFilter(`${attrPath} needs a sub-attribute`);
    if (op === 'pr' && !path.sub) return collection.exists(sql<boolean>`true`);
    return collection.exists(compare(collection.element(sub), op, value));
  }
  if (path.attr.type === 'complex' && !path.sub) {
    if (op !== 'pr') throw invalidFilter(`${attrPath} is complex: compare one of its sub-attributes`);
  }
  return compare(operandOf(target, path), op, value);
}

function compare(operand: Operand, op: string, value: Value): Bool {
  if (op === 'pr') return operand.present;
  if (value === null) {
    // `eq null` is "has no value" (RFC 7643 section 2.5: null is unassigned).
    if (op === 'eq') return sql<boolean>`(not ${operand.present})`;
    if (op === 'ne') return operand.present;
    throw invalidFilter(`${op} cannot compare with null`);
  }
  switch (operand.def.type) {
    case 'boolean':
      return compareBoolean(operand, op, value);
    case 'dateTime':
      return compareTime(operand, op, value);
    case 'integer':
    case 'decimal':
      return compareNumber(operand, op, value);
    default:
      return compareText(operand, op, String(value));
  }
}

const ordering: Record<string, string> = { gt: '>', ge: '>=', lt: '<', le: '<=' };

function compareText(operand: Operand, op: string, value: string): Bool {
  const exact = operand.def.caseExact;
  const x = exact ? operand.value : sql`lower(${operand.value})`;
  const v = exact ? sql`${value}::text` : sql`lower(${value}::text)`;
  switch (op) {
    case 'eq':
      return sql<boolean>`coalesce(${x} = ${v}, false)`;
    case 'ne':
      return sql<boolean>`coalesce(${x} <> ${v}, true)`;
    case 'co':
      return sql<boolean>`coalesce(strpos(${x}, ${v}) > 0, false)`;
    case 'sw':
      return sql<boolean>`coalesce(starts_with(${x}, ${v}), false)`;
    case 'ew':
      return sql<boolean>`coalesce(right(${x}, char_length(${value}::text)) = ${v}, false)`;
    default:
      return sql<boolean>`coalesce(${x} ${sql.raw(ordering[op])} ${v}, false)`;
  }
}

function compareBoolean(operand: Operand, op: string, value: Value): Bool {
  if (op !== 'eq' && op !== 'ne') throw invalidFilter(`${operand.def.name} is a boolean: use eq or ne`);
  const raw = typeof value === 'string' ? value.toLowerCase() : value;
  if (raw !== true && raw !== false && raw !== 'true' && raw !== 'false')
    throw invalidFilter(`${operand.def.name} compares with true or false`);
  const b = raw === true || raw === 'true';
  const v = operand.sqlType === 'boolean' ? sql`${b}::boolean` : sql`${String(b)}::text`;
  return op === 'eq'
    ? sql<boolean>`coalesce(${operand.value} = ${v}, false)`
    : sql<boolean>`coalesce(${operand.value} <> ${v}, true)`;
}

/** ISO 8601 with any number of fractional digits (the collection sends seven). */
function parseTime(value: Value): string {
  const text = String(value).replace(/(\.\d{3})\d+/, '$1');
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw invalidFilter(`${String(value)} is not a dateTime (RFC 7643 section 2.3.5)`);
  return new Date(ms).toISOString();
}

function compareTime(operand: Operand, op: string, value: Value): Bool {
  const t = sql`${parseTime(value)}::timestamptz`;
  const x = operand.sqlType === 'timestamptz' ? operand.value : sql`(${operand.value})::timestamptz`;
  if (op === 'co' || op === 'sw' || op === 'ew')
    throw invalidFilter(`${operand.def.name} is a dateTime: use eq, ne, gt, ge, lt or le`);
  if (op === 'eq') return sql<boolean>`coalesce(${x} = ${t}, false)`;
  if (op === 'ne') return sql<boolean>`coalesce(${x} <> ${t}, true)`;
  return sql<boolean>`coalesce(${x} ${sql.raw(ordering[op])} ${t}, false)`;
}

function compareNumber(operand: Operand, op: string, value: Value): Bool {
  const n = Number(value);
  if (!Number.isFinite(n)) throw invalidFilter(`${operand.def.name} compares with a number`);
  if (op === 'co' || op === 'sw' || op === 'ew')
    throw invalidFilter(`${operand.def.name} is a number: use eq, ne, gt, ge, lt or le`);
  const x = sql`(${operand.value})::numeric`;
  const v = sql`${String(n)}::numeric`;
  if (op === 'eq') return sql<boolean>`coalesce(${x} = ${v}, false)`;
  if (op === 'ne') return sql<boolean>`coalesce(${x} <> ${v}, true)`;
  return sql<boolean>`coalesce(${x} ${sql.raw(ordering[op])} ${v}, false)`;
}
