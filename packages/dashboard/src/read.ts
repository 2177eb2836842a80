import type { DashboardConfig, Widget, WidgetPosition } from './schema.ts';

/**
 * A stored dashboard config (spec 2.2) read for drawing: the store keeps it as JSON, checked
 * against the schema when it was published or saved (schema.ts), so it is taken as it is, but for
 * widgets that could not be placed on a grid (no string id, no position of four numbers), which
 * are left out rather than break a layout. Never throws: the viewer, the renderer and the
 * widget-data endpoint all read configs this way, so that they agree on which widgets exist.
 */
export function readDashboardConfig(value: unknown): DashboardConfig {
  const config = isObject(value) ? (value as DashboardConfig) : {};
  const widgets = Array.isArray(config.widgets) ? config.widgets.filter(placeable) : [];
  return { ...config, widgets };
}

/** The widgets of a stored config that can be placed (see readDashboardConfig). */
export function dashboardWidgets(value: unknown): Widget[] {
  return readDashboardConfig(value).widgets ?? [];
}

/** What the accessors below read: a widget of a config or of a draft. */
type Configured = Pick<Widget, 'config'>;

/** The report a widget shows (`config.reportId`), or null for one that shows none (text, spacer). */
export function widgetReportId(widget: Configured): number | null {
  const id = widget.config?.reportId;
  return typeof id === 'number' ? id : null;
}

/** The widget's own title (`config.title`), which wins over its report's. */
export function widgetTitle(widget: Configured): string | null {
  const title = widget.config?.title;
  return typeof title === 'string' ? title : null;
}

/** A text widget's text (`config.text`). */
export function widgetText(widget: Configured): string | null {
  const text = widget.config?.text;
  return typeof text === 'string' ? text : null;
}

/** A dashboard filter bound to a member, with the value it starts at (`settings.filters`, issue 23). */
export interface DashboardFilterSetting {
  member: string;
  /** The value the viewer starts with when the link names none; absent: no default. */
  defaultValue?: string;
}

/** The dashboard's own filters (`settings.filters`), read without trusting their shape. */
export function dashboardFilters(
  config: Pick<DashboardConfig, 'settings'> | null | undefined,
): DashboardFilterSetting[] {
  const raw = config?.settings?.filters;
  if (!Array.isArray(raw)) return [];
  const seen = new Set<string>();
  return raw.flatMap((f: unknown) => {
    const member = (f as { member?: unknown })?.member;
    const value = (f as { defaultValue?: unknown })?.defaultValue;
    if (typeof member !== 'string' || member === '' || seen.has(member)) return [];
    seen.add(member);
    return [{ member, ...(typeof value === 'string' && value !== '' ? { defaultValue: value } : {}) }];
  });
}

function placeable(widget: unknown): widget is Widget {
  return isObject(widget) && typeof widget.id === 'string' && isPosition(widget.position);
}

function isPosition(value: unknown): value is WidgetPosition {
  return (
    isObject(value) &&
    (['x', 'y', 'w', 'h'] as const).every((k) => typeof value[k] === 'number' && Number.isFinite(value[k]))
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
