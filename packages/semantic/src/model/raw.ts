import { locationOf } from './yaml.ts';

/**
 * Raw definitions straight from YAML, with keys normalised: Cube accepts JS-style camelCase
 * (`sqlTable`, `primaryKey`, `drillMembers`) as well as snake_case, so both map to snake_case.
 * `meta` objects are user data and keep their keys.
 */
export type Raw = Record<string, unknown>;

const camel = /[A-Z]/g;

export function snakeCase(key: string): string {
  return key.replace(camel, (c) => `_${c.toLowerCase()}`);
}

/** Sections that JS-style models may write as objects keyed by member name: the names stay. */
const NAMED_SECTIONS = new Set([
  'measures',
  'dimensions',
  'segments',
  'joins',
  'pre_aggregations',
  'hierarchies',
  'granularities',
]);

export function normalizeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeKeys);
  if (!isRecord(value)) return value;
  const out: Raw = {};
  for (const [key, v] of Object.entries(value)) {
    const k = snakeCase(key);
    if (k === 'meta') out[k] = v;
    else if (NAMED_SECTIONS.has(k) && isRecord(v)) out[k] = byName(v);
    else out[k] = normalizeKeys(v);
  }
  return keepLocation(value, out);
}

function byName(section: Raw): Raw {
  const out: Raw = {};
  for (const [name, member] of Object.entries(section)) out[name] = normalizeKeys(member);
  return keepLocation(section, out);
}

const relocated = new WeakMap<object, object>();

/** Normalised copies forward to the original object's location. */
export function keepLocation(from: object, to: Raw): Raw {
  relocated.set(to, originOf(from) as object);
  return to;
}

export function originOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return relocated.get(value) ?? value;
}

export function hasLocation(value: unknown): boolean {
  return locationOf(originOf(value)) !== undefined;
}

export function isRecord(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Members come as a YAML list of `{name, ...}` or, JS-style, as an object keyed by name. */
export function memberList(value: unknown): Raw[] {
  if (Array.isArray(value)) return value.filter(isRecord);
  if (isRecord(value)) {
    return Object.entries(value)
      .filter(([, v]) => isRecord(v))
      .map(([name, v]) => {
        const r = v as Raw;
        const copy = keepLocation(originOf(r) as object, { name, ...r });
        return copy;
      });
  }
  return [];
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
}
