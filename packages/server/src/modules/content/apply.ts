import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { type FieldProblem, ValidationError } from '../../errors/domain-errors.ts';
import type { AccessContext } from '../permissions/access.ts';
import type { ContentTarget } from '../permissions/content.ts';
import {
  type ContentItem,
  canonical,
  fileField,
  mapReportIds,
  type NotificationBody,
  type ReportBody,
  type WorkbookBody,
} from './files.ts';
import { type ContentPlan, grantKey, planChanges } from './plan.ts';
import type {
  ContentAccess,
  DashboardPublisher,
  FolderWriter,
  GrantWriter,
  NotificationWriter,
  ReportWriter,
  TreeLock,
  WorkbookWriter,
} from './ports.ts';
import type { ContentRepository } from './repository.ts';
import { type ContentState, contentState } from './state.ts';

export interface ApplyDeps {
  repository: ContentRepository;
  access: ContentAccess;
  treeLock: TreeLock;
  folders: FolderWriter;
  workbooks: WorkbookWriter;
  reports: ReportWriter;
  dashboards: DashboardPublisher;
  notifications: NotificationWriter;
  permissions: GrantWriter;
}

type Grantees = Awaited<ReturnType<ContentRepository['grantees']>>;

/**
 * The deployment's content and the plan for `desired`, after the checks that need the store: every
 * grantee an account user or group, no published dashboard unpublished. Throws a 400 naming file
 * and field for each problem.
 */
export async function prepare(
  deps: Pick<ApplyDeps, 'repository'>,
  principal: Principal,
  deploymentId: number,
  desired: ContentItem[],
  db?: Db,
): Promise<{ state: ContentState; plan: ContentPlan; grantees: Grantees }> {
  const state = contentState(await deps.repository.read(deploymentId, db));
  const grantees = await deps.repository.grantees(principal.tenantId, db);
  const problems: FieldProblem[] = [];
  const current = new Map(state.items.map((i) => [`${i.kind}:${i.id}`, i]));
  for (const item of desired) {
    if (item.kind === 'notification') continue;
    item.body.grants.forEach((g, i) => {
      if ('user' in g && !grantees.users.has(g.user.toLowerCase()))
        problems.push({
          field: fileField(item.file, `/grants/${i}/user`),
          message: 'is not a user of this account',
        });
      if ('group' in g && !grantees.groups.has(g.group))
        problems.push({
          field: fileField(item.file, `/grants/${i}/group`),
          message: 'is not a group of this account',
        });
    });
    const was = current.get(`${item.kind}:${item.id}`);
    if (
      item.kind === 'workbook' &&
      was?.kind === 'workbook' &&
      was.body.dashboard.published &&
      !item.body.dashboard.published
    )
      problems.push({
        field: fileField(item.file, '/dashboard/published'),
        message:
          'the dashboard is published: it cannot be unpublished, only replaced or deleted with its workbook',
      });
  }
  if (problems.length > 0) throw new ValidationError('The content directory has problems', problems);
  return { state, plan: planChanges(state.items, desired), grantees };
}

/**
 * Makes the deployment's content what `desired` describes, inside `trx` (issue 25 item 6), through
 * each module's own checks, writes and audit entries. One apply of a deployment runs at a time (an
 * advisory lock), and it reads the content after taking it, so a second apply of the same directory,
 * concurrent or later, finds nothing to do.
 */
export async function applyWithin(
  deps: ApplyDeps,
  principal: Principal,
  deploymentId: number,
  desired: ContentItem[],
  trx: Db,
): Promise<ContentPlan> {
  await deps.repository.lockApply(deploymentId, trx);
  await deps.treeLock.lockTree(deploymentId, trx);
  const { state, plan, grantees } = await prepare(deps, principal, deploymentId, desired, trx);
  if (plan.changes.length === 0) return plan;
  const current = new Map(state.items.map((i) => [`${i.kind}:${i.id}`, i]));
  const was = <K extends ContentItem['kind']>(kind: K, id: string) =>
    current.get(`${kind}:${id}`) as Extract<ContentItem, { kind: K }> | undefined;
  const resolve = () => deps.access.resolve(principal, deploymentId, trx);
  let ctx = await resolve();

  // Folders, parents first; the access context is read again after each level, so that the next
  // level's parents are in its tree.
  const folderIds = new Map(state.folderIds);
  const folders = desired.filter((i): i is Extract<ContentItem, { kind: 'folder' }> => i.kind === 'folder');
  const depth = (id: string) => id.split('/').length;
  for (let level = 1; folders.some((f) => depth(f.id) >= level); level++) {
    for (const f of folders.filter((x) => depth(x.id) === level)) {
      const existing = folderIds.get(f.id);
      if (existing === undefined) {
        const parent = f.id.split('/').slice(0, -1).join('/');
        const parentId = parent === '' ? null : folderIds.get(parent)!;
        folderIds.set(
          f.id,
          await deps.folders.createWithin(ctx, principal, { parentId, ...named(f.body) }, trx),
        );
      } else {
        const before = was('folder', f.id)!.body;
        if (before.name !== f.body.name || before.position !== f.body.position)
          await deps.folders.updateWithin(ctx, principal, existing, named(f.body), trx);
      }
    }
    ctx = await resolve();
  }
  const folderIdOf = (dir: string) => (dir === '' ? null : folderIds.get(dir)!);

  // Workbooks (their dashboards once their reports exist), then reports.
  const workbookIds = new Map(state.workbookIds);
  const workbooks = desired.filter(
    (i): i is Extract<ContentItem, { kind: 'workbook' }> => i.kind === 'workbook',
  );
  for (const w of workbooks) {
    const folderId = folderIdOf(w.folder);
    const existing = workbookIds.get(w.id);
    if (existing === undefined) {
      const input = {
        folderId,
        name: w.body.name,
        slug: w.id,
        meta: w.body.meta,
        calculatedFields: w.body.calculatedFields,
      };
      workbookIds.set(
        w.id,
        await deps.workbooks.createWithin(ctx, principal, { ...input, dashboardDraft: null }, trx),
      );
      continue;
    }
    const before = was('workbook', w.id)!;
    const changes = {
      ...(before.body.name !== w.body.name ? { name: w.body.name } : {}),
      ...(canonical(before.body.meta) !== canonical(w.body.meta) ? { meta: w.body.meta } : {}),
      ...(canonical(before.body.calculatedFields) !== canonical(w.body.calculatedFields)
        ? { calculatedFields: w.body.calculatedFields }
        : {}),
      ...(before.folder !== w.folder ? { folderId } : {}),
    };
    if (Object.keys(changes).length > 0)
      await deps.workbooks.updateWithin(
        ctx,
        principal,
        await deps.workbooks.require(deploymentId, existing, trx),
        changes,
        trx,
      );
  }
  const reportIds = new Map(state.reportIds);
  for (const r of desired.filter((i): i is Extract<ContentItem, { kind: 'report' }> => i.kind === 'report')) {
    const input = reportInput(
      r.body,
      folderIdOf(r.folder),
      r.body.workbook === null ? null : workbookIds.get(r.body.workbook)!,
    );
    const existing = reportIds.get(r.id);
    if (existing === undefined) {
      reportIds.set(r.id, await deps.reports.createWithin(ctx, principal, { ...input, publicId: r.id }, trx));
      continue;
    }
    const before = was('report', r.id)!;
    if (
      before.folder !== r.folder ||
      canonical({ ...before.body, grants: [] }) !== canonical({ ...r.body, grants: [] })
    )
      await deps.reports.updateWithin(
        ctx,
        principal,
        await deps.reports.require(deploymentId, existing, principal.userId, trx),
        input,
        trx,
      );
  }
  const toIds = (config: Record<string, unknown> | null) =>
    mapReportIds(config, (ref) => (typeof ref === 'string' ? reportIds.get(ref) : ref));
  for (const w of workbooks) {
    const id = workbookIds.get(w.id)!;
    const before = was('workbook', w.id)?.body.dashboard ?? { draft: null, published: null };
    if (canonical(before.draft) !== canonical(w.body.dashboard.draft)) {
      const row = await deps.workbooks.require(deploymentId, id, trx);
      await deps.workbooks.updateWithin(
        ctx,
        principal,
        row,
        { dashboardDraft: toIds(w.body.dashboard.draft) },
        trx,
      );
    }
    const published = w.body.dashboard.published;
    if (published && canonical(before.published) !== canonical(published)) {
      const row = await deps.workbooks.require(deploymentId, id, trx);
      await deps.dashboards.publishWithin(
        principal,
        ctx,
        row,
        toIds(published.config)!,
        {
          title: published.title,
          description: published.description,
          allowEmbed: published.allowEmbed,
          field: fileField(w.file, '/dashboard/published/config'),
        },
        trx,
      );
    }
  }

  // Notifications: a change of workbook, or a field emptied that an update would keep, recreates one.
  const notificationIds = new Map(state.notificationIds);
  for (const n of desired.filter(
    (i): i is Extract<ContentItem, { kind: 'notification' }> => i.kind === 'notification',
  )) {
    const existing = notificationIds.get(n.id);
    const before = was('notification', n.id)?.body;
    const body = notificationInput(n.body);
    if (existing !== undefined && before) {
      if (canonical(before) === canonical(n.body)) continue;
      if (before.workbook === n.body.workbook && !emptiesAField(before, n.body)) {
        await deps.notifications.updateWithin(principal, deploymentId, existing, body, trx);
        continue;
      }
      await deps.notifications.deleteWithin(principal, deploymentId, existing, trx);
    }
    const dashboardPublicId = await deps.repository.dashboardPublicId(workbookIds.get(n.body.workbook)!, trx);
    await deps.notifications.createWithin(principal, deploymentId, { ...body, dashboardPublicId }, trx, n.id);
  }

  // Grants, once every item exists (creating one granted its creator manage).
  await applyGrants(deps, ctx, principal, desired, { folderIds, workbookIds, reportIds }, grantees, trx);

  // Deletes, contents before their containers, folders deepest first.
  const deletes = plan.changes.filter((c) => c.action === 'delete');
  for (const c of deletes.filter((d) => d.kind === 'notification'))
    await deps.notifications.deleteWithin(principal, deploymentId, state.notificationIds.get(c.id)!, trx);
  for (const c of deletes.filter((d) => d.kind === 'report'))
    await deps.reports.deleteWithin(ctx, principal, state.reportIds.get(c.id)!, trx);
  for (const c of deletes.filter((d) => d.kind === 'workbook'))
    await deps.workbooks.deleteWithin(ctx, principal, state.workbookIds.get(c.id)!, trx);
  const goneFolders = deletes.filter((d) => d.kind === 'folder').sort((a, b) => depth(b.id) - depth(a.id));
  if (goneFolders.length > 0) ctx = await resolve();
  for (const c of goneFolders)
    await deps.folders.deleteWithin(ctx, principal, state.folderIds.get(c.id)!, trx);
  return plan;
}

function named(body: { name: string; position: number }) {
  return { name: body.name, position: body.position };
}

function reportInput(body: ReportBody, folderId: number | null, workbookId: number | null) {
  return {
    name: body.name,
    title: body.title,
    description: body.description,
    sqlQuery: body.sqlQuery,
    jsonQuery: body.jsonQuery,
    spec: body.spec,
    preferences: body.preferences,
    fillMissingRows: body.fillMissingRows,
    meta: body.meta,
    folderId,
    workbookId,
  };
}

function notificationInput(body: NotificationBody) {
  const { kind: _kind, key: _key, workbook: _workbook, ...fields } = body;
  return fields;
}

/** An update keeps what a null leaves out (the reference's partial update), so such a change recreates. */
function emptiesAField(before: NotificationBody, after: NotificationBody): boolean {
  return (['minute', 'hour', 'dayOfWeek', 'dayOfMonth', 'customCron'] as const).some(
    (f) => before[f] !== null && after[f] === null,
  );
}

async function applyGrants(
  deps: Pick<ApplyDeps, 'repository' | 'permissions'>,
  ctx: AccessContext,
  principal: Principal,
  desired: ContentItem[],
  ids: { folderIds: Map<string, number>; workbookIds: Map<string, number>; reportIds: Map<string, number> },
  grantees: Grantees,
  trx: Db,
) {
  const rows = await deps.repository.grants(ctx.deploymentId, trx);
  for (const item of desired) {
    if (item.kind === 'notification') continue;
    const target: ContentTarget =
      item.kind === 'folder'
        ? { type: 'FOLDER', id: ids.folderIds.get(item.id)! }
        : item.kind === 'workbook'
          ? { type: 'WORKBOOK', id: ids.workbookIds.get(item.id)! }
          : { type: 'REPORT', id: ids.reportIds.get(item.id)! };
    const column = { FOLDER: 'folder_id', WORKBOOK: 'workbook_id', REPORT: 'report_id' } as const;
    const held = rows.filter((r) => r[column[target.type]] === target.id);
    const heldKey = (r: (typeof rows)[number]) =>
      r.email !== null ? `user ${r.email.toLowerCase()}` : `group ${r.group_name}`;
    const wanted = new Map(item.body.grants.map((g) => [grantKey(g), g]));
    for (const [key, g] of wanted) {
      if (held.some((r) => heldKey(r) === key && r.level === g.level)) continue;
      const grantee =
        'user' in g
          ? { userId: grantees.users.get(g.user.toLowerCase())! }
          : { groupId: grantees.groups.get(g.group)! };
      await deps.permissions.grantWithin(ctx, principal, target, grantee, g.level, trx);
    }
    for (const r of held)
      if (!wanted.has(heldKey(r))) await deps.permissions.revokeWithin(ctx, principal, r, trx);
  }
}

export type { WorkbookBody };
