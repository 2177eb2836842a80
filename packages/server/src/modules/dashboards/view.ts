import type { Static } from 'typebox';
import type { Published, PublishedSnapshot } from './repository.ts';
import type { PublishedDashboard, ReportSnapshot } from './schemas.ts';

/** Spec 2.3. */
export function publishedView(p: Published): Static<typeof PublishedDashboard> {
  return {
    id: p.dashboard.id,
    publicId: p.dashboard.public_id,
    deploymentId: p.dashboard.deployment_id,
    workbookId: p.dashboard.workbook_id,
    allowEmbed: p.dashboard.allow_embed,
    config: p.version.config,
    reportSnapshots: p.snapshots.map(snapshotView),
    status: p.version.status,
    versionId: p.version.id,
    versionNumber: p.version.version_number,
    createdBy: p.version.created_by,
    title: p.version.title,
    description: p.version.description,
    fromSharedWorkspace: p.dashboard.from_shared_workspace,
    // A display flag (spec 2.3): the web app hides its data-download button. The widget-data
    // endpoint keeps answering, as the widgets need those rows to draw; the setting does not guard data.
    restrictDataDownload: p.restrictDataDownload,
    useBoardDashboards: false,
  };
}

function snapshotView(s: PublishedSnapshot): Static<typeof ReportSnapshot> {
  const fill = s.fill_missing_rows;
  return {
    id: s.id,
    reportId: s.report_id,
    versionNumber: s.version_number,
    name: s.name,
    title: s.title,
    description: s.description,
    // Spec 2.3's snapshot has no field for a semantic query; clients find it in meta.jsonQuery.
    meta: s.json_query === null ? s.meta : { ...s.meta, jsonQuery: s.json_query },
    preferences: {
      columnFormats: (s.preferences?.columnFormats as Record<string, unknown> | undefined) ?? null,
    },
    spec: s.spec === null ? null : JSON.stringify(s.spec),
    sqlQuery: s.sql_query,
    fillMissingRows: fill ? { member: fill.member, excludedDimensions: fill.excludedDimensions ?? [] } : null,
    kind: s.kind,
  };
}
