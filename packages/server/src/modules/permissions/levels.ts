import type { AccountRole, ContentLevel } from '../../db/schema.ts';

/** Content permissions are ordered: `view` < `edit` < `manage` (DESIGN.md "Identity and access"). */
const rank: Record<ContentLevel, number> = { view: 1, edit: 2, manage: 3 };

export function atLeast(held: ContentLevel | null, needed: ContentLevel): boolean {
  return held !== null && rank[held] >= rank[needed];
}

export function maxLevel(a: ContentLevel | null, b: ContentLevel | null): ContentLevel | null {
  if (a === null) return b;
  if (b === null) return a;
  return rank[a] >= rank[b] ? a : b;
}

/**
 * The account role caps what a grant can give: a `viewer` account only ever views content, even
 * when a folder grants it more; developers and admins keep what they are granted (admins hold
 * everything anyway, see access.ts).
 */
export function capByRole(level: ContentLevel | null, role: AccountRole): ContentLevel | null {
  if (level === null) return null;
  return role === 'viewer' ? 'view' : level;
}

/**
 * Spec 4.2 moves a report with "edit access to the report (with the report-manage permission)".
 * The report-manage permission is an account-level capability (the reference's `ReportManage`
 * action); here the developer and admin roles hold it and the viewer role does not.
 */
export function hasReportManage(role: AccountRole): boolean {
  return role !== 'viewer';
}
