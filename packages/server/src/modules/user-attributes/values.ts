import type { UserAttributeType } from '../../db/schema.ts';

/**
 * How a user attribute's value fits its type (reference `UserAttributeType`; spec 4.3
 * `userAttributeDefinitions`), shared by stored definitions and embed sessions' own.
 */
export function fitsType(value: unknown, type: UserAttributeType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'string_array':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'number_array':
      return Array.isArray(value) && value.every((v) => typeof v === 'number' && Number.isFinite(v));
  }
}

/** A default is text: kept as is for a string, parsed as JSON for the other types; undefined when it does not fit. */
export function readDefault(type: UserAttributeType, text: string): unknown {
  if (type === 'string') return text;
  try {
    const value: unknown = JSON.parse(text);
    return fitsType(value, type) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The reference's `formattedValue`: the value as a person reads it (lists comma-separated). */
export function formatValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((v) => String(v)).join(', ');
  return String(value);
}
