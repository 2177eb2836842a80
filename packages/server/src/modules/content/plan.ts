import { type ContentItem, type ContentKind, canonical } from './files.ts';

/** One field that applying changes: its path in the file, and the old and new values when short. */
export interface FieldChange {
  field: string;
  before?: unknown;
  after?: unknown;
}

export interface PlannedChange {
  action: 'create' | 'update' | 'delete';
  kind: ContentKind;
  /** The stable id: a folder's directory, a workbook's slug, a report's publicId, a notification's key. */
  id: string;
  file: string;
  fields: FieldChange[];
}

export interface ContentPlan {
  changes: PlannedChange[];
  summary: { create: number; update: number; delete: number };
}

/** The order apply works in and plan lists: containers before what they hold. */
const kindOrder: ContentKind[] = ['folder', 'workbook', 'report', 'notification'];

/**
 * What applying `desired` to a deployment holding `current` does, per item (issue 25 item 6):
 * created, changed (with each changed field) and deleted. Items are matched by kind and stable id;
 * a workbook or report whose file moved to another directory changes its `folder`.
 */
export function planChanges(current: ContentItem[], desired: ContentItem[]): ContentPlan {
  const key = (i: ContentItem) => `${i.kind}:${i.id}`;
  const now = new Map(current.map((i) => [key(i), i]));
  const next = new Map(desired.map((i) => [key(i), i]));
  const changes: PlannedChange[] = [];
  for (const item of desired) {
    const was = now.get(key(item));
    if (!was) {
      changes.push({ action: 'create', kind: item.kind, id: item.id, file: item.file, fields: [] });
      continue;
    }
    const fields = fieldChanges(was, item);
    if (fields.length > 0)
      changes.push({ action: 'update', kind: item.kind, id: item.id, file: item.file, fields });
  }
  for (const item of current)
    if (!next.has(key(item)))
      changes.push({ action: 'delete', kind: item.kind, id: item.id, file: item.file, fields: [] });
  const rank = (c: PlannedChange) => kindOrder.indexOf(c.kind);
  changes.sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    changes,
    summary: {
      create: changes.filter((c) => c.action === 'create').length,
      update: changes.filter((c) => c.action === 'update').length,
      delete: changes.filter((c) => c.action === 'delete').length,
    },
  };
}

/** Changed fields, one level into the dashboard; grants compared as a set (emails case-blind). */
export function fieldChanges(was: ContentItem, now: ContentItem): FieldChange[] {
  const out: FieldChange[] = [];
  if (was.kind !== 'folder' && was.folder !== now.folder)
    out.push({
      field: 'folder',
      before: was.folder || '(workspace root)',
      after: now.folder || '(workspace root)',
    });
  const a = was.body as Record<string, unknown>;
  const b = now.body as Record<string, unknown>;
  for (const field of Object.keys(b)) {
    if (field === 'grants') {
      out.push(...grantChanges(a.grants as GrantLike[], b.grants as GrantLike[]));
      continue;
    }
    if (field === 'dashboard') {
      const da = a.dashboard as Record<string, unknown>;
      const db = b.dashboard as Record<string, unknown>;
      for (const part of ['draft', 'published'])
        if (canonical(da[part]) !== canonical(db[part])) out.push({ field: `dashboard/${part}` });
      continue;
    }
    if (canonical(a[field]) !== canonical(b[field])) out.push(shortly(field, a[field], b[field]));
  }
  return out;
}

type GrantLike = { user?: string; group?: string; level: string };

export function grantKey(g: GrantLike): string {
  return g.user !== undefined ? `user ${g.user.toLowerCase()}` : `group ${g.group}`;
}

function grantChanges(was: GrantLike[], now: GrantLike[]): FieldChange[] {
  const before = new Map(was.map((g) => [grantKey(g), g.level]));
  const after = new Map(now.map((g) => [grantKey(g), g.level]));
  const out: FieldChange[] = [];
  for (const [who, level] of after)
    if (before.get(who) !== level)
      out.push({ field: `grants/${who}`, before: before.get(who) ?? null, after: level });
  for (const [who, level] of before)
    if (!after.has(who)) out.push({ field: `grants/${who}`, before: level, after: null });
  return out;
}

/** Scalars are shown as they are; an object or long text only as changed. */
function shortly(field: string, before: unknown, after: unknown): FieldChange {
  const short = (v: unknown) =>
    v === null ||
    typeof v === 'number' ||
    typeof v === 'boolean' ||
    (typeof v === 'string' && v.length <= 120);
  return short(before) && short(after) ? { field, before, after } : { field };
}

/** The plan as a person reads it in a terminal (the CLI's `content plan`). */
export function planText(plan: ContentPlan): string {
  const sign = { create: '+', update: '~', delete: '-' } as const;
  const lines = plan.changes.map((c) => {
    const head = `${sign[c.action]} ${c.action} ${c.kind} ${c.id} (${c.file})`;
    const fields = c.fields.map((f) =>
      'before' in f
        ? `    ${f.field}: ${JSON.stringify(f.before)} -> ${JSON.stringify(f.after)}`
        : `    ${f.field}: changed`,
    );
    return [head, ...fields].join('\n');
  });
  const { create, update, delete: remove } = plan.summary;
  lines.push(
    create + update + remove === 0
      ? 'No changes: the deployment matches the directory.'
      : `Plan: ${create} to create, ${update} to change, ${remove} to delete.`,
  );
  return lines.join('\n');
}
