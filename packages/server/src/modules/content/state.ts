import type { ContentLevel } from '../../db/schema.ts';
import {
  type ContentItem,
  type GrantEntry,
  mapReportIds,
  renderFile,
  slugify,
  sortKeys,
  uniqueName,
} from './files.ts';
import type { ContentRows } from './repository.ts';

/**
 * A deployment's content as the items its files describe, with the database ids behind each
 * stable id (for apply). Export is this, rendered; plan compares it with a directory's items.
 */
export interface ContentState {
  items: ContentItem[];
  folderIds: Map<string, number>;
  workbookIds: Map<string, number>;
  reportIds: Map<string, number>;
  notificationIds: Map<string, number>;
  /** Grants by item (`kind:id`), as the rows they are, for revoking. */
  grants: ContentRows['grants'];
}

const levelRank: Record<ContentLevel, number> = { view: 0, edit: 1, manage: 2 };

export function contentState(rows: ContentRows): ContentState {
  // Folders: a directory per folder, named after it; siblings that would share a name get -2, -3.
  const folderDir = new Map<number, string>();
  const byParent = new Map<number | null, ContentRows['folders']>();
  for (const f of rows.folders) byParent.set(f.parent_id, [...(byParent.get(f.parent_id) ?? []), f]);
  const walk = (parentId: number | null, prefix: string) => {
    const siblings = [...(byParent.get(parentId) ?? [])].sort(
      (a, b) => a.position - b.position || a.name.localeCompare(b.name) || a.id - b.id,
    );
    const taken = new Set<string>();
    for (const f of siblings) {
      const dir = `${prefix}${uniqueName(slugify(f.name, 'folder'), taken)}`;
      folderDir.set(f.id, dir);
      walk(f.id, `${dir}/`);
    }
  };
  walk(null, '');
  const folderOf = (id: number | null) => (id === null ? '' : (folderDir.get(id) ?? ''));

  // Workbooks: their slug; one without gets one from its name (applying the export gives it that slug).
  const slugs = new Set(rows.workbooks.flatMap((w) => (w.slug ? [w.slug] : [])));
  const workbookKey = new Map<number, string>();
  for (const w of rows.workbooks) if (w.slug) workbookKey.set(w.id, w.slug);
  for (const w of rows.workbooks)
    if (!w.slug) workbookKey.set(w.id, uniqueName(slugify(w.name, 'workbook'), slugs));
  const reportKey = new Map(rows.reports.map((r) => [r.id, r.public_id]));

  const grantsOf = (column: 'folder_id' | 'workbook_id' | 'report_id', id: number): GrantEntry[] =>
    grantList(rows.grants.filter((g) => g[column] === id));
  const toPublicIds = (config: Record<string, unknown> | null) =>
    sortKeys(
      mapReportIds(config, (ref) => (typeof ref === 'number' ? (reportKey.get(ref) ?? ref) : ref)),
    ) as Record<string, unknown> | null;

  const items: ContentItem[] = [];
  for (const f of rows.folders) {
    const dir = folderDir.get(f.id)!;
    items.push({
      kind: 'folder',
      id: dir,
      file: `workspace/${dir}/_folder.yaml`,
      folder: dir.split('/').slice(0, -1).join('/'),
      body: { kind: 'folder', name: f.name, position: f.position, grants: grantsOf('folder_id', f.id) },
    });
  }
  const published = new Map(rows.published.map((p) => [p.workbook_id, p]));
  for (const w of rows.workbooks) {
    const key = workbookKey.get(w.id)!;
    const p = published.get(w.id);
    const folder = folderOf(w.folder_id);
    items.push({
      kind: 'workbook',
      id: key,
      file: `workspace/${folder ? `${folder}/` : ''}${key}.workbook.yaml`,
      folder,
      body: {
        kind: 'workbook',
        slug: key,
        name: w.name,
        meta: sortKeys(w.meta ?? {}) as Record<string, unknown>,
        calculatedFields: sortKeys(w.calculated_fields ?? {}) as Record<string, unknown>,
        dashboard: {
          draft: toPublicIds(w.dashboard_draft),
          published: p
            ? {
                title: p.title,
                description: p.description,
                allowEmbed: p.allow_embed,
                config: toPublicIds(p.config)!,
              }
            : null,
        },
        grants: grantsOf('workbook_id', w.id),
      },
    });
  }
  // Reports: a file named after the report, in its folder; same names get -2, -3 by publicId order.
  const reportFiles = new Map<string, Set<string>>();
  for (const r of [...rows.reports].sort((a, b) => (a.public_id < b.public_id ? -1 : 1))) {
    const folder = folderOf(r.folder_id);
    const taken = reportFiles.get(folder) ?? new Set<string>();
    reportFiles.set(folder, taken);
    const name = uniqueName(slugify(r.name, 'report'), taken);
    items.push({
      kind: 'report',
      id: r.public_id,
      file: `workspace/${folder ? `${folder}/` : ''}${name}.report.yaml`,
      folder,
      body: {
        kind: 'report',
        publicId: r.public_id,
        name: r.name,
        title: r.title,
        description: r.description,
        workbook: r.workbook_id === null ? null : (workbookKey.get(r.workbook_id) ?? null),
        sqlQuery: r.sql_query,
        jsonQuery: r.json_query,
        spec: (sortKeys(r.spec ?? null) as Record<string, unknown> | null) ?? null,
        preferences:
          r.column_formats === null ? null : { columnFormats: sortKeys(r.column_formats) as never },
        fillMissingRows:
          (sortKeys(r.fill_missing_rows) as ContentRows['reports'][number]['fill_missing_rows']) ?? null,
        meta: (sortKeys(r.meta) as Record<string, unknown> | null) ?? null,
        grants: grantsOf('report_id', r.id),
      },
    });
  }
  // Notifications: their key (migration 0033), or their workbook's slug and their order.
  const keys = new Set(rows.notifications.flatMap((n) => (n.content_key ? [n.content_key] : [])));
  const counts = new Map<number, number>();
  const notificationIds = new Map<string, number>();
  for (const n of rows.notifications) {
    const workbook = workbookKey.get(n.workbook_id);
    if (!workbook) continue;
    let key = n.content_key;
    if (!key) {
      const count = (counts.get(n.workbook_id) ?? 0) + 1;
      counts.set(n.workbook_id, count);
      key = uniqueName(`${workbook}-${count}`, keys);
    }
    notificationIds.set(key, n.id);
    items.push({
      kind: 'notification',
      id: key,
      file: `notifications/${key}.notification.yaml`,
      folder: '',
      body: {
        kind: 'notification',
        key,
        workbook,
        scheduleType: n.schedule_type as never,
        minute: n.minute,
        hour: n.hour,
        dayOfWeek: n.day_of_week,
        dayOfMonth: n.day_of_month,
        customCron: n.custom_cron,
        timezone: n.timezone,
        isEnabled: n.is_enabled,
        notificationEnabled: n.notification_enabled,
        notificationFormat: n.notification_format,
        filters: (sortKeys(n.filters) as never) ?? null,
        timeGrains: (sortKeys(n.time_grains) as never) ?? null,
      },
    });
  }
  return {
    items,
    folderIds: new Map([...folderDir].map(([id, dir]) => [dir, id])),
    workbookIds: new Map([...workbookKey].map(([id, key]) => [key, id])),
    reportIds: new Map([...reportKey].map(([id, key]) => [key, id])),
    notificationIds,
    grants: rows.grants,
  };
}

/** Grants as a file lists them: users by email, then groups by name; the highest level of each. */
export function grantList(rows: ContentRows['grants']): GrantEntry[] {
  const users = new Map<string, ContentLevel>();
  const groups = new Map<string, ContentLevel>();
  for (const g of rows) {
    const map = g.email !== null ? users : g.group_name !== null ? groups : null;
    const name = g.email ?? g.group_name;
    if (!map || name === null) continue;
    const was = map.get(name);
    if (!was || levelRank[g.level] > levelRank[was]) map.set(name, g.level);
  }
  return [
    ...[...users].sort(([a], [b]) => (a < b ? -1 : 1)).map(([user, level]) => ({ user, level })),
    ...[...groups].sort(([a], [b]) => (a < b ? -1 : 1)).map(([group, level]) => ({ group, level })),
  ];
}

/** The export: every item's file, by path, in path order. */
export function exportFiles(state: ContentState): Record<string, string> {
  const files: Record<string, string> = {};
  for (const item of [...state.items].sort((a, b) => (a.file < b.file ? -1 : 1)))
    files[item.file] = renderFile(item.body);
  return files;
}
