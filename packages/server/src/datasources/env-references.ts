import { kindOf } from './kinds/index.ts';
import type { StoredSettings } from './kinds/kind.ts';

/**
 * `${NAME}` in a data source's settings names one of its deployment's env variables (issue 22
 * item 4; reference group Env Variables). Names are POSIX identifiers, as the reference requires of
 * variable names; anything else (`$HOME`, `${not a name}`) is kept as written.
 */
const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The fields of a kind that may carry references (its `referencingFields`), as text. */
export type ClearSettings = Record<string, string | undefined>;
type ReferencingField = string;

/** The names referenced by each text field, in order of appearance, for fields that reference any. */
export function referencesIn(
  settings: Record<string, unknown>,
): Array<{ field: ReferencingField; name: string }> {
  return Object.entries(settings).flatMap(([field, value]) =>
    typeof value === 'string' ? [...value.matchAll(reference)].map((m) => ({ field, name: m[1]! })) : [],
  );
}

/** Replaces every reference with its value; names without a value are reported, never guessed. */
export function substitute(
  settings: ClearSettings,
  values: ReadonlyMap<string, string>,
): { settings: ClearSettings; missing: Array<{ field: ReferencingField; name: string }> } {
  const missing = referencesIn(settings).filter((r) => !values.has(r.name));
  const out: ClearSettings = { ...settings };
  for (const field of Object.keys(settings)) {
    const text = settings[field];
    if (text !== undefined)
      out[field] = text.replace(reference, (all, name: string) => values.get(name) ?? all);
  }
  return { settings: out, missing };
}

/** The clear text of the kind's fields that may reference variables, secrets opened with `open`. */
export function clearFields(settings: StoredSettings, open: (sealed: string) => string): ClearSettings {
  const kind = kindOf(settings);
  const out: ClearSettings = {};
  for (const field of kind.referencingFields) {
    const sealed = kind.secretFields.includes(field) ? settings[`${field}Enc`] : undefined;
    const value = typeof sealed === 'string' ? open(sealed) : settings[field];
    if (typeof value === 'string') out[field] = value;
  }
  return out;
}
