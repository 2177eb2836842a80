import { keepPreviousData } from '@tanstack/react-query';
import { isApiError } from '@tessera/client';
import { useGetDashboardWidgetData } from '@tessera/client/react';
import { chartSpec, shownGrains, widgetText, widgetTitleAtGrains } from '@tessera/dashboard';
import { type ReactNode, useCallback, useMemo, useState } from 'react';
import { AlertDialog } from './alert-dialog.tsx';
import type { WidgetData, WidgetDataBody } from './api-types.ts';
import { crossFilterMember, type PickedItem, pickedValue } from './cross-filter.ts';
import { toCsv } from './csv.ts';
import { BigNumber, DataTable } from './data-table.tsx';
import { downloadCsv } from './download.ts';
import { MarkdownText } from './markdown-text.tsx';
import { memberLabel, type WidgetModel } from './model.ts';
import { singleFigure, toTable } from './rows.ts';
import { useTileActions } from './tile-actions.ts';
import { TileMenu, type TileMenuItem } from './tile-menu.tsx';
import type { DashboardFilter, Grain, SemanticQuery } from './types.ts';
import { VegaChart } from './vega-chart.tsx';
import { stateFilters, stateGrains, type ViewState } from './view-state.ts';

/** What browser tests and the benchmark wait on: `data-state` on every tile. */
export type TileState = 'loading' | 'drawn' | 'error' | 'empty';

export interface WidgetTileProps {
  model: WidgetModel;
  deploymentId: number;
  publicId: string;
  /** The published version the config came from: every tile reads that version's snapshots. */
  versionNumber: number;
  state: ViewState;
  allowDownload: boolean;
  chartConfig: Record<string, unknown>;
  /**
   * Cross-filtering (cross-filter.ts): the members a picked value may filter the dashboard by,
   * and what to do with the pick. None where the dashboard shows no controls to undo it with.
   */
  crossFilter?: { members: ReadonlySet<string>; onPick: (member: string, value: string) => void };
  /** Where the tile's query opens in Explore, with the dashboard's filters; none in an embed. */
  exploreHref?: (query: SemanticQuery, filters: DashboardFilter[]) => string;
  /** "Create alert" in the tile's menu (issue 23 item 6), mailing this address by default; admins only. */
  createAlert?: { defaultEmail: string };
}

/** One widget: its title, its rows drawn as a chart, a table or a figure, and a CSV download. */
export function WidgetTile(props: WidgetTileProps) {
  const { model } = props;
  if (model.missingReport) {
    return (
      <Frame model={model} state="error">
        <TileError message="This widget's report is not part of the published dashboard." />
      </Frame>
    );
  }
  const type = model.widget.type;
  if (!model.snapshot && (type === 'SPACER' || type === 'DIVIDER')) {
    // Layout widgets: room between tiles, or a rule across it; nothing to load.
    return (
      <div
        className={type === 'DIVIDER' ? 'tsr-divider' : 'tsr-spacer'}
        data-widget-id={model.widget.id}
        data-state="drawn"
      >
        {type === 'DIVIDER' ? <hr /> : null}
      </div>
    );
  }
  if (!model.snapshot) {
    const text = widgetText(model.widget);
    return (
      <Frame model={model} state={text ? 'drawn' : 'empty'}>
        {text ? <MarkdownText text={text} heading={model.widget.config?.variant === 'heading'} /> : null}
      </Frame>
    );
  }
  return <ReportTile {...props} />;
}

function ReportTile({
  model,
  deploymentId,
  publicId,
  versionNumber,
  state,
  allowDownload,
  chartConfig,
  exploreHref,
  crossFilter,
  createAlert,
}: WidgetTileProps) {
  const [asTable, setAsTable] = useState(false);
  const [alerting, setAlerting] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const body = useMemo<WidgetDataBody>(() => {
    // A SQL-API report takes the controls whose member its SQL projects; the server says which
    // it could not take (`notApplied`), and the tile shows them.
    if (!model.query)
      return {
        versionNumber,
        filters: stateFilters(state),
        timeGrains: stateGrains(state, Object.keys(state.grains)),
      };
    const timeMembers = (model.query.timeDimensions ?? [])
      .filter((t) => t.granularity !== undefined)
      .map((t) => t.dimension);
    return {
      versionNumber,
      filters: stateFilters(state),
      timeGrains: stateGrains(state, timeMembers),
      // A tile draws its rows and never shows their count: no counting statement beside each
      // query on the warehouse (it doubled the engine's work of every filter change, issue 23).
      total: false,
    };
  }, [model.query, state, versionNumber]);

  const query = useGetDashboardWidgetData(
    { params: { path: { deploymentId, publicId, widgetId: model.widget.id } }, body },
    {
      placeholderData: keepPreviousData,
      staleTime: 60_000,
      refetchOnWindowFocus: false,
      // A 4xx is the query's own problem (a bad member, no access): asking again will not help.
      retry: (count, error) => count < 2 && !(isApiError(error) && error.status < 500),
    },
  );
  const table = useMemo(() => (query.data ? toTable(query.data) : null), [query.data]);
  // The grains of the rows on the page, not of the rows asked for: while a new grain loads, the
  // previous chart stays (dimmed) with its own axis and title, and is redrawn only with new rows.
  const sqlGrains = useMemo(() => JSON.stringify(body.timeGrains ?? []), [body.timeGrains]);
  const grains = useMemo(
    () => shownGrains(query.data, JSON.parse(sqlGrains) as { member: string; grain: Grain }[]),
    [query.data, sqlGrains],
  );
  const title = widgetTitleAtGrains(model.title, model.query, grains);
  const spec = useMemo(
    () =>
      table && model.spec
        ? chartSpec(
            // A text alternative for the chart (Vega writes it as the SVG's aria-label).
            title && model.spec.description === undefined
              ? { description: title, ...model.spec }
              : model.spec,
            table.rows,
            table.columns.map((c) => c.name),
            grains,
          )
        : null,
    [table, model.spec, title, grains],
  );
  // The member this chart's bars or slices stand for, when the dashboard's widgets share it.
  const pickMember = useMemo(() => {
    if (!spec || !table || !model.query || !crossFilter) return null;
    const member = crossFilterMember(
      spec,
      table.columns.map((c) => c.name),
    );
    return member && crossFilter.members.has(member) ? member : null;
  }, [spec, table, model.query, crossFilter]);
  const onPickMember = crossFilter?.onPick;
  const onPick = useCallback(
    (item: unknown) => {
      if (!pickMember || !onPickMember) return;
      const value = pickedValue(item as PickedItem, pickMember);
      if (value !== null) onPickMember(pickMember, value);
    },
    [pickMember, onPickMember],
  );
  const [drawn, setDrawn] = useState<object | null>(null);
  const [chartError, setChartError] = useState<{ spec: object; message: string } | null>(null);
  const onDrawn = useCallback((drawnSpec: object) => setDrawn(drawnSpec), []);
  const onError = useCallback((e: Error) => spec && setChartError({ spec, message: e.message }), [spec]);

  const download =
    allowDownload && table && table.rows.length > 0 ? () => downloadCsv(toCsv(table), title) : null;
  const actions = useTileActions({ deploymentId, publicId, widgetId: model.widget.id, body, title });
  const refreshing = query.isPlaceholderData || actions.busy === 'refresh';
  const menuItems: TileMenuItem[] = [];
  if (model.spec && table && !singleFigure(table))
    menuItems.push({
      label: asTable ? 'View as chart' : 'View as table',
      onSelect: () => setAsTable((t) => !t),
    });
  if (download) {
    menuItems.push({ label: 'Download CSV', onSelect: download });
    menuItems.push({ label: 'Download XLSX', onSelect: () => void actions.downloadXlsx() });
  }
  menuItems.push({ label: 'Refresh', onSelect: () => void actions.refresh() });
  if (exploreHref && model.query)
    menuItems.push({ label: 'Open in Explore', href: exploreHref(model.query, stateFilters(state)) });
  if (createAlert && model.query?.measures?.length)
    menuItems.push({ label: 'Create alert', onSelect: () => setAlerting(true) });
  const menu = (
    <>
      <TileMenu title={title} items={menuItems} />
      {alerting && createAlert && model.query ? (
        <AlertDialog
          deploymentId={deploymentId}
          title={title}
          query={model.query}
          titles={Object.fromEntries((table?.columns ?? []).map((c) => [c.name, c.title]))}
          defaultEmail={createAlert.defaultEmail}
          onClose={() => setAlerting(false)}
          onCreated={(message) => {
            setAlerting(false);
            setNotice(message);
          }}
        />
      ) : null}
    </>
  );

  if (query.isError) {
    return (
      <Frame model={model} title={title} state="error">
        <TileError message={errorText(query.error)} />
      </Frame>
    );
  }
  if (!table) {
    return (
      <Frame model={model} title={title} state="loading">
        <Skeleton />
      </Frame>
    );
  }
  const figure = singleFigure(table);
  // No rows, or a total over no rows (a measure with nothing to add up answers null).
  if (table.rows.length === 0 || (figure && table.rows[0][figure.name] == null)) {
    return (
      <Frame model={model} title={title} state={refreshing ? 'loading' : 'empty'}>
        <p className="tsr-empty">No data for these filters</p>
      </Frame>
    );
  }
  let content: ReactNode;
  let tileState: TileState = 'drawn';
  if (figure) {
    content = <BigNumber table={table} column={figure} formats={model.columnFormats} />;
  } else if (asTable) {
    content = <DataTable table={table} formats={model.columnFormats} />;
  } else if (spec && chartError?.spec === spec) {
    return (
      <Frame model={model} title={title} state="error" onDownload={download} menu={menu}>
        <TileError message={`The chart could not be drawn: ${chartError.message}`} />
      </Frame>
    );
  } else if (spec) {
    content = (
      <VegaChart
        spec={spec}
        config={chartConfig}
        onDrawn={onDrawn}
        onError={onError}
        onPick={pickMember ? onPick : undefined}
      />
    );
    if (drawn !== spec) tileState = 'loading';
  } else {
    content = <DataTable table={table} formats={model.columnFormats} />;
  }
  return (
    <Frame
      model={model}
      title={title}
      state={refreshing ? 'loading' : tileState}
      onDownload={download}
      menu={menu}
      dimmed={refreshing}
      note={
        <>
          <NotApplied answer={query.data} />
          <ActionStatus busy={actions.busy} problem={actions.problem} notice={notice} />
        </>
      }
    >
      {content}
    </Frame>
  );
}

/** What a menu action is doing, why it failed, or what it made (screen readers hear each). */
function ActionStatus(props: {
  busy: 'refresh' | 'xlsx' | null;
  problem: string | null;
  notice: string | null;
}) {
  const { busy, problem } = props;
  const text =
    problem ??
    (busy === 'xlsx' ? 'Making the XLSX…' : busy === 'refresh' ? 'Refreshing…' : (props.notice ?? ''));
  return (
    <p className={problem ? 'tsr-action-status tsr-action-error' : 'tsr-action-status'} role="status">
      {text}
    </p>
  );
}

/** The dashboard controls this tile's SQL could not take, named rather than silently ignored. */
function NotApplied({ answer }: { answer: WidgetData | undefined }) {
  const members = [...new Set((answer?.notApplied ?? []).map((n) => memberLabel(n.member)))];
  if (members.length === 0) return null;
  const reasons = (answer?.notApplied ?? []).map((n) => `${n.member}: ${n.reason}`).join('\n');
  return (
    <p className="tsr-not-applied" role="note" title={reasons}>
      Not applied to this tile: {members.join(', ')}
    </p>
  );
}

function Frame({
  model,
  title = model.title,
  state,
  children,
  onDownload,
  dimmed,
  note,
  menu,
}: {
  model: WidgetModel;
  /** The heading, when it differs from the report's (a title at the grain drawn). */
  title?: string;
  state: TileState;
  children?: ReactNode;
  onDownload?: (() => void) | null;
  dimmed?: boolean;
  /** A line under the body (the controls a SQL tile could not take). */
  note?: ReactNode;
  /** The tile's menu (tile-menu.tsx). */
  menu?: ReactNode;
}) {
  return (
    <section
      className="tsr-tile"
      data-widget-id={model.widget.id}
      data-state={state}
      aria-busy={state === 'loading'}
      aria-label={title || undefined}
    >
      {title || onDownload || menu ? (
        <header className="tsr-tile-head">
          <h3 className="tsr-tile-title" title={model.description ?? undefined}>
            {title}
          </h3>
          {onDownload ? (
            <button
              type="button"
              className="tsr-download"
              onClick={onDownload}
              title="Download the rows as CSV"
              aria-label={`Download ${title || 'data'} as CSV`}
            >
              <DownloadIcon />
              CSV
            </button>
          ) : null}
          {menu}
        </header>
      ) : null}
      <div className={dimmed ? 'tsr-tile-body tsr-dimmed' : 'tsr-tile-body'}>{children}</div>
      {note}
    </section>
  );
}

function Skeleton() {
  return (
    <div className="tsr-skeleton" aria-hidden="true">
      <span />
      <span />
      <span />
    </div>
  );
}

function TileError({ message }: { message: string }) {
  return (
    <div className="tsr-error" role="alert">
      <strong>Could not load this widget</strong>
      <span className="tsr-error-text">{message}</span>
    </div>
  );
}

function DownloadIcon() {
  return (
    <svg viewBox="0 0 16 16" width="13" height="13" aria-hidden="true">
      <path
        d="M8 2v8m0 0L4.5 6.5M8 10l3.5-3.5M3 13h10"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.6"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}

/** The server's words for a failed widget query: the problem's `detail` (DESIGN.md "Errors"). */
export function errorText(error: unknown): string {
  if (isApiError<{ detail?: unknown; title?: unknown }>(error)) {
    const body = error.body;
    if (body && typeof body.detail === 'string' && body.detail !== '') return body.detail;
    if (body && typeof body.title === 'string') return body.title;
    return error.message;
  }
  if (error instanceof TypeError) return 'The server could not be reached.';
  return error instanceof Error ? error.message : String(error);
}
