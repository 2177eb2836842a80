import { keepLocation, memberList, type Raw, str } from './raw.ts';
import { type ErrorReporter, locate } from './reporter.ts';
import type { SourceLocation } from './types.ts';

/**
 * `extends` copies the parent's definition into the child; the child's own members override the
 * parent's by name (https://cube.dev/docs/product/data-modeling/concepts/code-reusability-extending-cubes).
 * Works on raw definitions, before templates are parsed, so that `{CUBE}` in inherited members
 * means the child.
 */
const MEMBER_LISTS = ['measures', 'dimensions', 'segments', 'joins', 'pre_aggregations', 'hierarchies'];

export function resolveExtends(
  raws: ReadonlyMap<string, { raw: Raw; loc: SourceLocation }>,
  reporter: ErrorReporter,
): Map<string, Raw> {
  const done = new Map<string, Raw>();
  const visiting = new Set<string>();
  const visit = (name: string): Raw | null => {
    const found = done.get(name);
    if (found) return found;
    const entry = raws.get(name);
    if (!entry) return null;
    const parentName = parentOf(entry.raw);
    if (parentName === null) {
      done.set(name, entry.raw);
      return entry.raw;
    }
    if (visiting.has(name)) {
      reporter.error(
        locate(entry.raw, entry.loc, 'extends'),
        name,
        null,
        `Cycle in extends: ${name} extends itself`,
      );
      return null;
    }
    visiting.add(name);
    const parent = raws.has(parentName) ? visit(parentName) : null;
    visiting.delete(name);
    if (!raws.has(parentName)) {
      reporter.error(
        locate(entry.raw, entry.loc, 'extends'),
        name,
        null,
        `Cube ${name} extends unknown cube ${parentName}`,
      );
    }
    const merged = parent ? merge(parent, entry.raw) : entry.raw;
    done.set(name, merged);
    return merged;
  };
  for (const name of raws.keys()) visit(name);
  return done;
}

function parentOf(raw: Raw): string | null {
  const e = str(raw.extends);
  return e === null ? null : e.replace(/^\$?\{\s*|\s*\}$/g, '').trim();
}

function merge(parent: Raw, child: Raw): Raw {
  const out: Raw = { ...parent, ...child };
  for (const list of MEMBER_LISTS) {
    if (parent[list] === undefined || child[list] === undefined) continue;
    const byName = new Map<string, Raw>();
    for (const m of memberList(parent[list])) byName.set(String(m.name), m);
    for (const m of memberList(child[list])) byName.set(String(m.name), m);
    out[list] = [...byName.values()];
  }
  // the merged object keeps the child's location (it is what the user wrote here)
  return keepLocation(child, out);
}
