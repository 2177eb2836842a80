import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { PageHeader } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { cellText, type Row, type Table } from '../results/index.ts';
import { dayBefore, useUsageApi, useUsageTable } from './usage-data.ts';
import './usage-page.css';

type Api = ReturnType<typeof useUsageApi>['api'];

const last30Days = () => [dayBefore(30), dayBefore(0)];

/**
 * Settings > Usage (issue 25 item 5), admins only: who looks at what, which dashboards nobody
 * opens, the slowest SQL runs and active users per day, each a query of the built-in Usage
 * Analytics model through the data API, with a token the page mints for itself.
 */
export function UsagePage() {
  const { api, token } = useUsageApi();
  return (
    <>
      <PageHeader
        title="Usage"
        subtitle="Who looks at what, unused dashboards and slow queries, from this account's own log."
      />
      {token.isError ? (
        <ErrorState title="Usage is not available" error={token.error} onRetry={() => token.refetch()} />
      ) : (
        <div className="usage-grid">
          <MostViewed api={api} />
          <ActiveUsers api={api} />
          <Unused api={api} />
          <SlowestQueries api={api} />
        </div>
      )}
    </>
  );
}

/** A published dashboard's title as a link to it (`/dashboards/:deploymentId/:publicId`). */
function dashboardLink(row: Row, prefix: 'dashboards') {
  const title = String(row[`${prefix}.title`] ?? 'Untitled dashboard');
  return (
    <Link to={`/dashboards/${row[`${prefix}.deployment_id`]}/${row[`${prefix}.public_id`]}`}>{title}</Link>
  );
}

function MostViewed({ api }: { api: Api }) {
  const result = useUsageTable(api, 'most-viewed', {
    measures: ['dashboard_views.count', 'dashboard_views.viewers'],
    dimensions: [
      'dashboards.title',
      'dashboards.workbook_name',
      'dashboards.deployment_id',
      'dashboards.public_id',
    ],
    timeDimensions: [{ dimension: 'dashboard_views.viewed_at', dateRange: last30Days() }],
    order: { 'dashboard_views.count': 'desc' },
    limit: 10,
  });
  return (
    <UsageSection
      id="usage-most-viewed"
      title="Most viewed dashboards"
      note="Opens in the last 30 days"
      result={result}
    >
      {(table) => (
        <UsageTable
          table={table}
          labelledBy="usage-most-viewed"
          columns={[
            {
              name: 'dashboards.title',
              title: 'Dashboard',
              render: (row) => dashboardLink(row, 'dashboards'),
            },
            { name: 'dashboards.workbook_name', title: 'Workbook', optional: true },
            { name: 'dashboard_views.count', title: 'Views', numeric: true },
            { name: 'dashboard_views.viewers', title: 'Viewers', numeric: true },
          ]}
          empty="No dashboard was opened in the last 30 days."
        />
      )}
    </UsageSection>
  );
}

function Unused({ api }: { api: Api }) {
  const result = useUsageTable(api, 'unused', {
    dimensions: [
      'dashboards.title',
      'dashboards.deployment_name',
      'dashboards.last_viewed_at',
      'dashboards.deployment_id',
      'dashboards.public_id',
    ],
    segments: ['dashboards.unused'],
    order: { 'dashboards.last_viewed_at': 'asc', 'dashboards.title': 'asc' },
    limit: 50,
  });
  return (
    <UsageSection id="usage-unused" title="Unused dashboards" note="No view in 30 days" result={result}>
      {(table) => (
        <UsageTable
          table={table}
          labelledBy="usage-unused"
          columns={[
            {
              name: 'dashboards.title',
              title: 'Dashboard',
              render: (row) => dashboardLink(row, 'dashboards'),
            },
            { name: 'dashboards.deployment_name', title: 'Deployment', optional: true },
            {
              name: 'dashboards.last_viewed_at',
              title: 'Last viewed',
              render: (row, text) => (row['dashboards.last_viewed_at'] == null ? 'Never' : text),
            },
          ]}
          empty="Every dashboard was opened in the last 30 days."
        />
      )}
    </UsageSection>
  );
}

function SlowestQueries({ api }: { api: Api }) {
  const result = useUsageTable(api, 'slowest', {
    dimensions: [
      'queries.sql_text',
      'queries.user_email',
      'queries.deployment_name',
      'queries.duration_ms',
      'queries.created_at',
    ],
    timeDimensions: [{ dimension: 'queries.created_at', dateRange: last30Days() }],
    order: { 'queries.duration_ms': 'desc' },
    limit: 10,
  });
  return (
    <UsageSection
      id="usage-slowest"
      title="Slowest queries"
      note="SQL editor runs, last 30 days"
      result={result}
      wide
    >
      {(table) => (
        <UsageTable
          table={table}
          labelledBy="usage-slowest"
          columns={[
            {
              name: 'queries.sql_text',
              title: 'SQL',
              className: 'usage-sql-cell',
              render: (_row, text) => <code className="usage-sql">{text}</code>,
            },
            { name: 'queries.user_email', title: 'User', optional: true },
            { name: 'queries.deployment_name', title: 'Deployment', optional: true },
            { name: 'queries.duration_ms', title: 'Duration (ms)', numeric: true },
            { name: 'queries.created_at', title: 'Run at', optional: true, nowrap: true },
          ]}
          empty="No query was run in the last 30 days."
        />
      )}
    </UsageSection>
  );
}

function ActiveUsers({ api }: { api: Api }) {
  const result = useUsageTable(api, 'active-users', {
    measures: ['activity.active_users', 'activity.count'],
    timeDimensions: [{ dimension: 'activity.at', granularity: 'day', dateRange: last30Days() }],
    order: { 'activity.at': 'desc' },
  });
  return (
    <UsageSection
      id="usage-active"
      title="Active users by day"
      note="Who opened a dashboard or ran a query"
      result={result}
    >
      {(table) => (
        <UsageTable
          table={table}
          labelledBy="usage-active"
          columns={[
            { name: 'activity.at.day', title: 'Day', nowrap: true },
            { name: 'activity.active_users', title: 'Active users', numeric: true },
            { name: 'activity.count', title: 'Views and runs', numeric: true },
          ]}
          empty="Nobody was active in the last 30 days."
        />
      )}
    </UsageSection>
  );
}

function UsageSection(props: {
  id: string;
  title: string;
  note: string;
  /** Spans the whole grid (a table with long text). */
  wide?: boolean;
  result: { isPending: boolean; isError: boolean; error: unknown; data?: Table; refetch: () => unknown };
  children: (table: Table) => ReactNode;
}) {
  const { result } = props;
  return (
    <section className={`card usage-card${props.wide ? ' usage-wide' : ''}`} aria-labelledby={props.id}>
      <div className="card-body">
        <h2 id={props.id}>{props.title}</h2>
        <p className="muted usage-note">{props.note}</p>
        {result.isError ? (
          <ErrorState error={result.error} onRetry={() => result.refetch()} />
        ) : result.data ? (
          props.children(result.data)
        ) : (
          <LoadingState label={`Loading ${props.title.toLowerCase()}…`} />
        )}
      </div>
    </section>
  );
}

interface UsageColumn {
  name: string;
  title: string;
  numeric?: boolean;
  /** Hidden on a phone (settings-table `.col-optional`). */
  optional?: boolean;
  /** Kept on one line (a date). */
  nowrap?: boolean;
  className?: string;
  render?: (row: Row, text: string) => ReactNode;
}

/** Rows formatted as the app formats results (numbers, dates), in a region that scrolls on a phone. */
function UsageTable(props: { table: Table; columns: UsageColumn[]; labelledBy: string; empty: string }) {
  const { table } = props;
  if (table.rows.length === 0) return <EmptyState title={props.empty} />;
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  const text = (row: Row, name: string) => {
    const column = byName.get(name);
    return column ? cellText(row, column) : String(row[name] ?? '');
  };
  const className = (c: UsageColumn) =>
    [
      c.numeric ? 'usage-num' : '',
      c.optional ? 'col-optional' : '',
      c.nowrap ? 'usage-day' : '',
      c.className ?? '',
    ]
      .filter(Boolean)
      .join(' ') || undefined;
  return (
    <table className="items settings-table usage-table" aria-labelledby={props.labelledBy}>
      <thead>
        <tr>
          {props.columns.map((c) => (
            <th key={c.name} scope="col" className={className(c)}>
              {c.title}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {table.rows.map((row, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows of a read-only answer, never reordered in place
          <tr key={index}>
            {props.columns.map((c) => (
              <td key={c.name} className={className(c)}>
                {c.render ? c.render(row, text(row, c.name)) : text(row, c.name)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
