import type { DataSourceSettings } from '../db/schema.ts';

/**
 * `${NAME}` in a data source's settings names one of its deployment's env variables (issue 22
 * item 4; reference group Env Variables). Names are POSIX identifiers, as the reference requires of
 * variable names; anything else (`$HOME`, `${not a name}`) is kept as written.
 */
const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The settings that may carry references: text fields of a connection, and the password. */
export const referencingFields = ['host', 'database', 'user', 'password'] as const;
export type ReferencingField = (typeof referencingFields)[number];

export type ClearSettings = Partial<Record<ReferencingField, string>>;

/** The names referenced by each field, in order of appearance, for fields that reference any. */
export function referencesIn(settings: ClearSettings): Array<{ field: ReferencingField; name: string }> {
  return referencingFields.flatMap((field) =>
    [...(settings[field] ?? '').matchAll(reference)].map((m) => ({ field, name: m[1]! })),
  );
}

/** Replaces every reference with its value; names without a value are reported, never guessed. */
export function substitute(
  settings: ClearSettings,
  values: ReadonlyMap<string, string>,
): { settings: ClearSettings; missing: Array<{ field: ReferencingField; name: string }> } {
  const missing = referencesIn(settings).filter((r) => !values.has(r.name));
  const out: ClearSettings = { ...settings };
  for (const field of referencingFields) {
    const text = settings[field];
    if (text !== undefined)
      out[field] = text.replace(reference, (all, name: string) => values.get(name) ?? all);
  }
  return { settings: out, missing };
}

/** The clear text of the fields that may reference variables, the password opened with `open`. */
export function clearFields(settings: DataSourceSettings, open: (sealed: string) => string): ClearSettings {
  return {
    host: settings.host,
    database: settings.database,
    user: settings.user,
    password: settings.passwordEnc ? open(settings.passwordEnc) : undefined,
  };
}
