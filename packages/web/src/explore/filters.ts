/** The data API's filter operators (every one the semantic layer takes) by the member's type. */
import type { Member } from './model.ts';

export interface OperatorInfo {
  value: string;
  label: string;
  /** What values it takes: none, one or more, a date range, one date. */
  takes: 'none' | 'values' | 'range' | 'date';
}

const op = (value: string, label: string, takes: OperatorInfo['takes'] = 'values'): OperatorInfo => ({
  value,
  label,
  takes,
});

export const allOperators: readonly OperatorInfo[] = [
  op('equals', 'equals'),
  op('notEquals', 'does not equal'),
  op('in', 'is one of'),
  op('notIn', 'is none of'),
  op('contains', 'contains'),
  op('notContains', 'does not contain'),
  op('startsWith', 'starts with'),
  op('notStartsWith', 'does not start with'),
  op('endsWith', 'ends with'),
  op('notEndsWith', 'does not end with'),
  op('gt', '>'),
  op('gte', '≥'),
  op('lt', '<'),
  op('lte', '≤'),
  op('set', 'is set', 'none'),
  op('notSet', 'is not set', 'none'),
  op('inDateRange', 'in date range', 'range'),
  op('notInDateRange', 'not in date range', 'range'),
  op('beforeDate', 'before', 'date'),
  op('beforeOrOnDate', 'on or before', 'date'),
  op('afterDate', 'after', 'date'),
  op('afterOrOnDate', 'on or after', 'date'),
  op('measureFilter', 'measure’s own filter', 'none'),
];

const byType: Record<string, readonly string[]> = {
  string: [
    'equals',
    'notEquals',
    'in',
    'notIn',
    'contains',
    'notContains',
    'startsWith',
    'notStartsWith',
    'endsWith',
    'notEndsWith',
    'set',
    'notSet',
  ],
  number: ['equals', 'notEquals', 'in', 'notIn', 'gt', 'gte', 'lt', 'lte', 'set', 'notSet'],
  time: [
    'inDateRange',
    'notInDateRange',
    'beforeDate',
    'beforeOrOnDate',
    'afterDate',
    'afterOrOnDate',
    'equals',
    'notEquals',
    'set',
    'notSet',
  ],
  boolean: ['equals', 'notEquals', 'set', 'notSet'],
};

/** The operators that make sense for a member (a measure also takes `measureFilter`). */
export function operatorsFor(member: Member | undefined): OperatorInfo[] {
  const names = [...(byType[member?.type ?? 'string'] ?? byType.string)];
  if (member?.kind === 'measure') names.push('measureFilter');
  return names.map((n) => operatorInfo(n));
}

export function operatorInfo(name: string): OperatorInfo {
  return allOperators.find((o) => o.value === name) ?? op(name, name);
}

/** Relative date ranges the data API understands (Cube's date parser), offered as presets. */
export const relativeRanges: readonly string[] = [
  'today',
  'yesterday',
  'this week',
  'this month',
  'this quarter',
  'this year',
  'last 7 days',
  'last 30 days',
  'last week',
  'last month',
  'last quarter',
  'last year',
  'last 12 months',
];

/** Values typed as text: separated by commas (a value with a comma in it goes in quotes). */
export function parseValues(text: string): string[] {
  const out: string[] = [];
  const re = /\s*(?:"((?:[^"]|"")*)"|([^,]*))\s*(?:,|$)/g;
  let m: RegExpExecArray | null = re.exec(text);
  while (m && m[0] !== '') {
    const value = m[1] !== undefined ? m[1].replaceAll('""', '"') : (m[2] ?? '').trim();
    if (value !== '' || m[1] !== undefined) out.push(value);
    m = re.exec(text);
  }
  return out;
}

export function valuesText(values: readonly string[] | undefined): string {
  return (values ?? [])
    .map((v) => (v.includes(',') || v.includes('"') ? `"${v.replaceAll('"', '""')}"` : v))
    .join(', ');
}
