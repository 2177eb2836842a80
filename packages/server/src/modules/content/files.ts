import { type Static, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';
import { parseDocument, stringify } from 'yaml';
import type { FieldProblem } from '../../errors/domain-errors.ts';
import { DashboardFilter, TimeGrain } from '../dashboard-data/schemas.ts';
import { scheduleTypes } from '../notifications/schedule.ts';
import { FillMissingRows, Preferences } from '../reports/schemas.ts';
import { itemName, JsonObject, nullable, strict } from '../workspace/common.ts';

/**
 * The files of content kept as code (issue 25 item 6), one per item, in a tree that mirrors the
 * workspace:
 *
 *   workspace/_folder.yaml is never written: the workspace root is no item
 *   workspace/<folder>/_folder.yaml                   a folder (its directory is its identity)
 *   workspace/[<folder>/]<slug>.workbook.yaml         a workbook and its dashboard (spec 2.1, 2.2)
 *   workspace/[<folder>/]<name>.report.yaml           a report, identified by its `publicId`
 *   notifications/<key>.notification.yaml             a scheduled notification (spec 2.5)
 *
 * Items name each other by these stable ids (a workbook's slug, a report's publicId, a folder's
 * directory), never by database ids, which differ between deployments. Nothing secret is in them.
 */

const slug = Type.String({ minLength: 1, maxLength: 255, pattern: '^[a-z0-9][a-z0-9-]*$' });
const contentKey = Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9][a-z0-9-]*$' });
const publicId = Type.String({ pattern: '^[0-9A-Za-z]{12}$' });
export const contentLevels = ['view', 'edit', 'manage'] as const;
const level = Type.Enum(contentLevels);

/** A grant names an account user by email or a group by name (spec 4.3). */
const Grant = Type.Union([
  Type.Object({ user: Type.String({ minLength: 3, maxLength: 320 }), level }, strict),
  Type.Object({ group: Type.String({ minLength: 1, maxLength: 255 }), level }, strict),
]);
const Grants = Type.Array(Grant, { maxItems: 1000 });

export const FolderFile = Type.Object(
  {
    kind: Type.Literal('folder'),
    name: itemName,
    position: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
    grants: Grants,
  },
  strict,
);

const Published = Type.Object(
  {
    title: nullable(Type.String({ maxLength: 255 })),
    description: nullable(Type.String({ maxLength: 10_000 })),
    allowEmbed: Type.Boolean(),
    config: JsonObject,
  },
  strict,
);

export const WorkbookFile = Type.Object(
  {
    kind: Type.Literal('workbook'),
    slug,
    name: itemName,
    meta: JsonObject,
    calculatedFields: JsonObject,
    dashboard: Type.Object(
      {
        /** Spec 2.2; widgets name their report by publicId (`config.reportId`). */
        draft: nullable(JsonObject),
        /** The newest published version; absent before the first publish. */
        published: nullable(Published),
      },
      strict,
    ),
    grants: Grants,
  },
  strict,
);

export const ReportFile = Type.Object(
  {
    kind: Type.Literal('report'),
    publicId,
    name: itemName,
    title: nullable(Type.String({ maxLength: 255 })),
    description: nullable(Type.String({ maxLength: 10_000 })),
    /** The workbook it belongs to, by slug. */
    workbook: nullable(slug),
    sqlQuery: nullable(Type.String({ maxLength: 100_000 })),
    jsonQuery: nullable(Type.String({ maxLength: 100_000 })),
    spec: nullable(JsonObject),
    preferences: nullable(Preferences),
    fillMissingRows: nullable(FillMissingRows),
    meta: nullable(JsonObject),
    grants: Grants,
  },
  strict,
);

const timeField = nullable(Type.Integer());

export const NotificationFile = Type.Object(
  {
    kind: Type.Literal('notification'),
    key: contentKey,
    /** The workbook whose published dashboard it sends, by slug. */
    workbook: slug,
    scheduleType: Type.Enum(scheduleTypes),
    minute: timeField,
    hour: timeField,
    dayOfWeek: timeField,
    dayOfMonth: timeField,
    customCron: nullable(Type.String({ maxLength: 200 })),
    timezone: Type.String({ minLength: 1, maxLength: 64 }),
    isEnabled: Type.Boolean(),
    notificationEnabled: Type.Boolean(),
    notificationFormat: Type.Enum(['png', 'pdf'] as const),
    filters: nullable(Type.Array(DashboardFilter, { maxItems: 100 })),
    timeGrains: nullable(Type.Array(TimeGrain, { maxItems: 50 })),
  },
  strict,
);

export type FolderBody = Static<typeof FolderFile>;
export type WorkbookBody = Static<typeof WorkbookFile>;
export type ReportBody = Static<typeof ReportFile>;
export type NotificationBody = Static<typeof NotificationFile>;
export type GrantEntry = Static<typeof Grant>;

/** A parsed file: where it is, the folder it sits in ('' is the workspace root), and its body. */
export type ContentItem =
  | { kind: 'folder'; id: string; file: string; folder: string; body: FolderBody }
  | { kind: 'workbook'; id: string; file: string; folder: string; body: WorkbookBody }
  | { kind: 'report'; id: string; file: string; folder: string; body: ReportBody }
  | { kind: 'notification'; id: string; file: string; folder: string; body: NotificationBody };

export type ContentKind = ContentItem['kind'];

/** Where a problem with a file is reported: `files[<path>]/<field>` (bad-input convention, STYLE.md). */
export function fileField(file: string, pointer = ''): string {
  return `files[${file}]${pointer}`;
}

const schemas: Record<ContentKind, TSchema> = {
  folder: FolderFile,
  workbook: WorkbookFile,
  report: ReportFile,
  notification: NotificationFile,
};

/** Which kind of item a path holds, and the folder directory it sits in; undefined: not a content file. */
export function classify(file: string): { kind: ContentKind; folder: string } | undefined {
  const parts = file.split('/');
  const base = parts[parts.length - 1] ?? '';
  if (parts[0] === 'notifications' && parts.length === 2 && base.endsWith('.notification.yaml'))
    return { kind: 'notification', folder: '' };
  if (parts[0] !== 'workspace' || parts.length < 2) return undefined;
  const folder = parts.slice(1, -1).join('/');
  if (base === '_folder.yaml') return folder === '' ? undefined : { kind: 'folder', folder };
  if (base.endsWith('.workbook.yaml')) return { kind: 'workbook', folder };
  if (base.endsWith('.report.yaml')) return { kind: 'report', folder };
  return undefined;
}

const segment = /^[a-z0-9][a-z0-9._-]*$/;

/**
 * Reads a directory's files (path -> YAML text) into items, every problem found named by file and
 * field; checks what one file alone cannot: unique ids, folders that exist, references that resolve.
 */
export function parseFiles(files: Record<string, string>): {
  items: ContentItem[];
  problems: FieldProblem[];
} {
  const problems: FieldProblem[] = [];
  const items: ContentItem[] = [];
  for (const file of Object.keys(files).sort()) {
    const where = classify(file);
    if (
      !where ||
      !file.split('/').every((s, i) => (i === 0 ? true : segment.test(s) || s === '_folder.yaml'))
    ) {
      problems.push({
        field: fileField(file),
        message:
          'is not a content file: workspace/<folder>/_folder.yaml, workspace/**/<slug>.workbook.yaml, workspace/**/<name>.report.yaml or notifications/<key>.notification.yaml, in lowercase letters, digits, dots and dashes',
      });
      continue;
    }
    const doc = parseDocument(files[file] ?? '', { uniqueKeys: true });
    if (doc.errors.length > 0) {
      const error = doc.errors[0]!;
      const line = error.linePos?.[0];
      problems.push({
        field: fileField(file),
        message: `is not valid YAML${line ? ` (line ${line.line}, column ${line.col})` : ''}: ${error.message.split('\n')[0]}`,
      });
      continue;
    }
    let body: unknown;
    try {
      body = doc.toJS({ maxAliasCount: 100 });
    } catch (error) {
      // Aliases expanding past the limit (a "billion laughs" file) and the like: the file's fault.
      problems.push({
        field: fileField(file),
        message: `cannot be read: ${(error as Error).message.split('\n')[0]}`,
      });
      continue;
    }
    const schema = schemas[where.kind];
    if (!Value.Check(schema, body)) {
      problems.push(...schemaProblems(file, schema, body));
      continue;
    }
    const id = idOf(where.kind, file, body as ContentItem['body']);
    items.push({ kind: where.kind, id, file, folder: where.folder, body } as ContentItem);
  }
  if (problems.length === 0) problems.push(...crossChecks(items));
  return { items, problems };
}

function idOf(kind: ContentKind, file: string, body: ContentItem['body']): string {
  switch (kind) {
    case 'folder':
      return file.split('/').slice(1, -1).join('/');
    case 'workbook':
      return (body as WorkbookBody).slug;
    case 'report':
      return (body as ReportBody).publicId;
    case 'notification':
      return (body as NotificationBody).key;
  }
}

function schemaProblems(file: string, schema: TSchema, body: unknown): FieldProblem[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return [{ field: fileField(file), message: 'must be a YAML mapping of the item’s fields' }];
  const errors = [...Value.Errors(schema, body)] as {
    instancePath: string;
    keyword: string;
    message: string;
    params?: { additionalProperties?: string[]; requiredProperties?: string[] };
  }[];
  const seen = new Set<string>();
  const out: FieldProblem[] = [];
  for (const e of errors) {
    if (e.keyword === 'anyOf') continue;
    let pointer = e.instancePath;
    let message = e.message;
    if (e.keyword === 'additionalProperties' && e.params?.additionalProperties?.length) {
      pointer = `${pointer}/${e.params.additionalProperties[0]}`;
      message = 'is not a field of this kind of item';
    } else if (e.keyword === 'required' && e.params?.requiredProperties?.length) {
      pointer = `${pointer}/${e.params.requiredProperties[0]}`;
      message = 'is required';
    }
    const field = fileField(file, pointer);
    if (seen.has(field)) continue;
    seen.add(field);
    out.push({ field, message });
    if (out.length >= 10) break;
  }
  return out.length > 0 ? out : [{ field: fileField(file), message: 'does not match its kind' }];
}

/** Ids unique per kind, folders present, references resolved (report -> workbook, widget -> report). */
function crossChecks(items: ContentItem[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Map<string, string>();
  for (const item of items) {
    const key = `${item.kind}:${item.id}`;
    const first = seen.get(key);
    if (first)
      problems.push({
        field: fileField(
          item.file,
          item.kind === 'report'
            ? '/publicId'
            : item.kind === 'folder'
              ? ''
              : item.kind === 'workbook'
                ? '/slug'
                : '/key',
        ),
        message: `repeats the ${item.kind} id of ${first}`,
      });
    else seen.set(key, item.file);
  }
  problems.push(...folderDirectoryChecks(items));
  const folders = new Set(items.filter((i) => i.kind === 'folder').map((i) => i.id));
  const workbooks = new Map(items.filter((i) => i.kind === 'workbook').map((i) => [i.id, i]));
  const reports = new Set(items.filter((i) => i.kind === 'report').map((i) => i.id));
  for (const item of items) {
    const parent = item.kind === 'folder' ? item.id.split('/').slice(0, -1).join('/') : item.folder;
    if (parent !== '' && !folders.has(parent))
      problems.push({
        field: fileField(item.file),
        message: `sits in workspace/${parent}, which has no _folder.yaml`,
      });
    if (item.kind === 'report' && item.body.workbook !== null && !workbooks.has(item.body.workbook))
      problems.push({
        field: fileField(item.file, '/workbook'),
        message: 'names no workbook of this directory',
      });
    if (item.kind === 'notification') {
      const workbook = workbooks.get(item.body.workbook);
      if (!workbook)
        problems.push({
          field: fileField(item.file, '/workbook'),
          message: 'names no workbook of this directory',
        });
      else if (workbook.kind === 'workbook' && workbook.body.dashboard.published === null)
        problems.push({
          field: fileField(item.file, '/workbook'),
          message: 'names a workbook with no published dashboard',
        });
    }
    if (item.kind === 'workbook') {
      for (const part of ['draft', 'published'] as const) {
        const config = part === 'draft' ? item.body.dashboard.draft : item.body.dashboard.published?.config;
        widgetReports(config).forEach((ref, index) => {
          // A number is a report id the export could not name (its report was deleted since): it
          // is kept as it is, for the dashboards service to judge as it judges any dangling id.
          if (ref !== undefined && typeof ref !== 'number' && (typeof ref !== 'string' || !reports.has(ref)))
            problems.push({
              field: fileField(
                item.file,
                `/dashboard/${part === 'draft' ? 'draft' : 'published/config'}/widgets/${index}/config/reportId`,
              ),
              message: 'names no report publicId of this directory',
            });
        });
      }
    }
  }
  return problems;
}

/**
 * A folder's directory is its identity, and an export names it after the folder (state.ts): its
 * name slugified, `-2`, `-3` for siblings that share one, in position then name order. A directory
 * named otherwise would be a different folder on the next export, and a second apply would not
 * find the first one's: so a renamed folder is renamed directory and all (a new folder).
 */
function folderDirectoryChecks(items: ContentItem[]): FieldProblem[] {
  const folders = items.filter((i): i is Extract<ContentItem, { kind: 'folder' }> => i.kind === 'folder');
  const byParent = new Map<string, typeof folders>();
  for (const f of folders) byParent.set(f.folder, [...(byParent.get(f.folder) ?? []), f]);
  const problems: FieldProblem[] = [];
  for (const siblings of byParent.values()) {
    const taken = new Set<string>();
    const ordered = [...siblings].sort(
      (a, b) =>
        a.body.position - b.body.position || a.body.name.localeCompare(b.body.name) || (a.id < b.id ? -1 : 1),
    );
    for (const f of ordered) {
      const expected = uniqueName(slugify(f.body.name, 'folder'), taken);
      const dir = f.id.split('/').pop();
      if (dir !== expected)
        problems.push({
          field: fileField(f.file, '/name'),
          message: `a folder of this name sits in a directory named ${expected}: rename the directory with the folder`,
        });
    }
  }
  return problems;
}

/** The `config.reportId` of each widget of a config (undefined where a widget has none). */
export function widgetReports(config: Record<string, unknown> | null | undefined): unknown[] {
  const widgets = config?.widgets;
  if (!Array.isArray(widgets)) return [];
  return widgets.map((w) =>
    w && typeof w === 'object' ? (w as { config?: { reportId?: unknown } }).config?.reportId : undefined,
  );
}

/** A config with each widget's `config.reportId` mapped (ids to publicIds on export, back on apply). */
export function mapReportIds(
  config: Record<string, unknown> | null,
  map: (ref: unknown) => unknown,
): Record<string, unknown> | null {
  if (config === null || !Array.isArray(config.widgets)) return config;
  return {
    ...config,
    widgets: config.widgets.map((w) => {
      const widget = w as { config?: Record<string, unknown> };
      if (!widget || typeof widget !== 'object' || !widget.config || widget.config.reportId === undefined)
        return w;
      return { ...widget, config: { ...widget.config, reportId: map(widget.config.reportId) } };
    }),
  };
}

/** Keys in alphabetical order at every depth: what jsonb kept is an object, whose order means nothing. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
  );
}

/** A file's text: its fields in the order its kind lists them, nested objects' keys sorted. */
export function renderFile(body: ContentItem['body']): string {
  return stringify(body, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** The same value, whatever the order of its keys, for comparing what a file says with what is stored. */
export function canonical(value: unknown): string {
  return JSON.stringify(sortKeys(value ?? null));
}

/** A file-name piece from a name: lowercase letters, digits and dashes. */
export function slugify(name: string, fallback: string): string {
  const s = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return s === '' ? fallback : s;
}

/** `base`, or `base-2`, `base-3`... whichever `taken` does not hold yet (which it then holds). */
export function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
  taken.add(name);
  return name;
}
