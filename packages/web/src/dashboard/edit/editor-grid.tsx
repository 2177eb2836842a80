import type { Breakpoint, DashboardDraft, Widget } from '@tessera/dashboard';
import {
  dashboardTabs,
  gridSettings,
  widgetReportId,
  widgetsOnTab,
  widgetText,
  widgetTitle,
} from '@tessera/dashboard';
import { useMemo } from 'react';
import { GridLayout, type Layout, useContainerWidth } from 'react-grid-layout';
import { MarkdownText } from '../markdown-text.tsx';
import { draftWidgets, placed } from './draft-model.ts';

export interface ReportInfo {
  id: number;
  name: string;
  title: string | null;
  description: string | null;
}

/** A widget's name in the editor: its own title, its report's, the first words of its text, or its id. */
export function widgetName(widget: Pick<Widget, 'id' | 'config'>, reports: ReadonlyMap<number, ReportInfo>) {
  const own = widgetTitle(widget);
  if (own) return own;
  const reportId = widgetReportId(widget);
  if (reportId !== null) {
    const report = reports.get(reportId);
    return report ? report.title || report.name : `Report ${reportId}`;
  }
  const text = widgetText(widget)
    ?.replace(/[#*_`>]/g, '')
    .trim();
  return text ? text.split('\n')[0].slice(0, 40) : widget.id;
}

/**
 * The draft's widgets on the viewer's grid (spec 2.2; packages/dashboard grid.ts places them the
 * same way) at the breakpoint being edited, each dragged by its grip and resized by its corner.
 * A drag or a resize ends in `onLayout` with the grid's whole layout (other tiles may have moved
 * out of the way), which becomes one undo step.
 */
export function EditorGrid(props: {
  draft: DashboardDraft;
  /** The tab shown (settings.tabs), or null for an untabbed dashboard. */
  tabId: string | null;
  /** The tab panel's id and its tab's, when the grid shows one tab (WAI-ARIA tabs). */
  panel: { id: string; labelledBy: string } | null;
  breakpoint: Breakpoint;
  reports: ReadonlyMap<number, ReportInfo>;
  selected: string | null;
  onSelect: (id: string) => void;
  onRemove: (id: string) => void;
  onLayout: (layout: Layout) => void;
}) {
  const { draft, breakpoint, tabId } = props;
  const settings = useMemo(() => gridSettings(draft.layout), [draft.layout]);
  const layout = useMemo(
    () => placed(draft, breakpoint, tabId).map(({ id, ...at }) => ({ i: id, ...at })),
    [draft, breakpoint, tabId],
  );
  const widgets = widgetsOnTab(draftWidgets(draft), dashboardTabs(draft), tabId);
  const { width, containerRef, mounted } = useContainerWidth({ measureBeforeMount: true });
  return (
    <div
      ref={containerRef}
      className="tsr-grid tsr-edit-grid"
      data-breakpoint={breakpoint}
      {...(props.panel
        ? { id: props.panel.id, role: 'tabpanel', 'aria-labelledby': props.panel.labelledBy }
        : {})}
    >
      {mounted ? (
        // A new grid per breakpoint: its columns change with it, and a grid kept across the change
        // was seen fitting the new layout into the old columns. The editor's tiles load nothing.
        <GridLayout
          key={`${breakpoint}:${tabId}`}
          width={width}
          layout={layout}
          gridConfig={{
            cols: settings.cols[breakpoint],
            rowHeight: settings.rowHeight,
            margin: settings.margin,
            containerPadding: settings.containerPadding,
          }}
          dragConfig={{ enabled: true, handle: '.tsr-edit-grip' }}
          resizeConfig={{ enabled: true }}
          onDragStop={(next) => props.onLayout(next)}
          onResizeStop={(next) => props.onLayout(next)}
        >
          {widgets.map((w) => (
            <div key={w.id} className="tsr-cell">
              <EditorTile
                widget={w}
                name={widgetName(w, props.reports)}
                report={props.reports.get(widgetReportId(w) ?? -1) ?? null}
                selected={props.selected === w.id}
                onSelect={() => props.onSelect(w.id)}
                onRemove={() => props.onRemove(w.id)}
              />
            </div>
          ))}
        </GridLayout>
      ) : null}
      {widgets.length === 0 ? (
        <p className="tsr-dashboard-empty">
          {tabId ? 'No widgets on this tab yet' : 'No widgets yet'}: add a report, a text or a heading.
        </p>
      ) : null}
    </div>
  );
}

function EditorTile(props: {
  widget: Widget;
  name: string;
  report: ReportInfo | null;
  selected: boolean;
  onSelect: () => void;
  onRemove: () => void;
}) {
  const { widget, name } = props;
  const text = widgetText(widget);
  const reportId = widgetReportId(widget);
  return (
    <section
      className={props.selected ? 'tsr-tile tsr-edit-tile tsr-edit-selected' : 'tsr-tile tsr-edit-tile'}
      data-widget-id={widget.id}
      aria-label={name}
      onMouseDown={props.onSelect}
    >
      <header className="tsr-tile-head">
        <span className="tsr-edit-grip" title="Drag to move" aria-hidden="true">
          ⠿
        </span>
        <button
          type="button"
          className="tsr-edit-name"
          onClick={props.onSelect}
          aria-pressed={props.selected}
          title="Select (then arrow keys move it, Shift+arrows resize it, Delete removes it)"
        >
          {name}
        </button>
        <button
          type="button"
          className="tsr-edit-remove"
          onClick={props.onRemove}
          aria-label={`Remove ${name}`}
        >
          ×
        </button>
      </header>
      <div className="tsr-tile-body">
        {reportId !== null ? (
          <p className="tsr-edit-chart">
            Chart of the report{' '}
            <strong>{props.report ? props.report.title || props.report.name : reportId}</strong>
            {props.report?.description ? (
              <span className="tsr-edit-muted"> · {props.report.description}</span>
            ) : null}
          </p>
        ) : text !== null ? (
          <MarkdownText text={text} heading={widget.config?.variant === 'heading'} />
        ) : (
          <p className="tsr-edit-muted">{widget.type ?? 'Widget'}</p>
        )}
      </div>
    </section>
  );
}
