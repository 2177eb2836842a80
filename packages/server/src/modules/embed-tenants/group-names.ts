import type { FieldProblem } from '../../errors/domain-errors.ts';

/** The reference's CreateEmbedGroupInput: `system:` names are the platform's own. */
export const reservedGroupPrefix = 'system:';

/**
 * One problem per name in `names` that is not in `known`, at its index in `field` (spec 4.3
 * rule 1: names that do not resolve are rejected, all of them named at once).
 */
export function unknownNames(
  names: string[],
  known: Set<string>,
  field: string,
  what: string,
): FieldProblem[] {
  return names.flatMap((name, i) =>
    known.has(name) ? [] : [{ field: `${field}/${i}`, message: `"${name}" is not ${what}` }],
  );
}

/** The names once each, in their first order. */
export function uniqueNames(names: readonly string[] | null | undefined): string[] {
  return [...new Set(names ?? [])];
}
