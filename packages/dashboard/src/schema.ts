import { type Static, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';

/**
 * The dashboard config of spec 2.2, written once: the schema a publish or a draft save is checked
 * against (and the OpenAPI document shows), and through `Static` the type every reader of a stored
 * config uses (the server's store and renderer, the web viewer and editor). Stored configs are
 * read with `readDashboardConfig` (read.ts), which needs none of this at run time, so that the web
 * bundle carries no schema.
 */

const nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** Unknown keys are refused. */
const strict = { additionalProperties: false } as const;
const JsonObject = Type.Record(Type.String(), Type.Unknown());
const str = nullable(Type.String({ maxLength: 1000 }));

/** One value per breakpoint, each optional (react-grid-layout's responsive settings). */
const perBreakpoint = <T extends TSchema>(t: T) => {
  const value = Type.Optional(nullable(t));
  return Type.Object({ lg: value, md: value, sm: value, xs: value, xxs: value }, strict);
};

/** A widget's place on the grid, in columns and rows (react-grid-layout units). */
export const WidgetPosition = Type.Object(
  {
    x: Type.Integer({ minimum: 0, maximum: 10_000 }),
    y: Type.Integer({ minimum: 0, maximum: 100_000 }),
    w: Type.Integer({ minimum: 1, maximum: 10_000 }),
    h: Type.Integer({ minimum: 1, maximum: 10_000 }),
  },
  strict,
);

/** Spec 2.2 `layout`: react-grid-layout's responsive-grid settings. */
export const DashboardLayout = Type.Object(
  {
    breakpoints: Type.Optional(nullable(perBreakpoint(Type.Number()))),
    cols: Type.Optional(nullable(perBreakpoint(Type.Number()))),
    /** [horizontal, vertical] pixels between the grid's edge and its tiles. */
    containerPadding: Type.Optional(nullable(Type.Array(Type.Number(), { maxItems: 4 }))),
    /** [horizontal, vertical] pixels between tiles. */
    margin: Type.Optional(nullable(Type.Array(Type.Number(), { maxItems: 4 }))),
    rowHeight: Type.Optional(nullable(Type.Number({ minimum: 0 }))),
  },
  strict,
);

const text = Type.Optional(str);
const border = Type.Object({ color: text, radius: text, style: text, width: text }, strict);
const title = Type.Object({ color: text, fontFamily: text, fontSize: text, fontWeight: text }, strict);
const part = <T extends TSchema>(t: T) => Type.Optional(nullable(t));

/** Spec 2.2 theme, as accepted on publish: every value is a string, unknown keys are refused. */
export const DashboardTheme = Type.Object(
  {
    backgroundColor: text,
    fontFamily: text,
    primaryColor: text,
    themeId: text,
    controls: part(
      Type.Object({ backgroundColor: text, padding: text, border: part(border), title: part(title) }, strict),
    ),
    dashboard: part(Type.Object({ backgroundColor: text, padding: text }, strict)),
    widgets: part(
      Type.Object(
        {
          backgroundColor: text,
          margin: text,
          padding: text,
          border: part(border),
          text: part(
            Type.Object(
              { codeFontFamily: text, color: text, fontFamily: text, secondaryColor: text },
              strict,
            ),
          ),
          title: part(title),
        },
        strict,
      ),
    ),
  },
  strict,
);

/** Spec 2.2 shows only CHART; the rest are the reference's widget types. */
export const widgetTypes = [
  'CHART',
  'TEXT',
  'FILTER',
  'AI',
  'TIME_GRAIN',
  'FIELD',
  'PARENT',
  'SPACER',
  'DIVIDER',
  'CONTAINER',
] as const;

const widgetFields = {
  position: WidgetPosition,
  type: Type.Optional(Type.Enum(widgetTypes)),
  /** A CHART widget names its report in `config.reportId`; a text widget has `config.text`. */
  config: Type.Optional(nullable(JsonObject)),
  responsiveLayouts: Type.Optional(nullable(perBreakpoint(WidgetPosition))),
  style: Type.Optional(nullable(JsonObject)),
};

/** A widget as sent (spec 4.4: no `type` needed; CHART is assumed). */
export const WidgetInput = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 128 }), ...widgetFields },
  strict,
);
/** A widget of a draft: its id may still be missing. */
export const DraftWidgetInput = Type.Object(
  { id: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 128 }))), ...widgetFields },
  strict,
);

const configFields = {
  title: Type.Optional(str),
  description: Type.Optional(nullable(Type.String({ maxLength: 10_000 }))),
  layout: Type.Optional(nullable(DashboardLayout)),
  settings: Type.Optional(nullable(JsonObject)),
  theme: Type.Optional(nullable(DashboardTheme)),
  kind: Type.Optional(nullable(Type.Enum(['CLASSIC', 'APP'] as const))),
};
/** A config to publish (spec 2.2, 4.4). */
export const DashboardConfigInput = Type.Object(
  { ...configFields, widgets: Type.Optional(nullable(Type.Array(WidgetInput, { maxItems: 500 }))) },
  strict,
);
/** A dashboard draft (spec 2.1 `dashboardDraft`): as a config, but widgets may lack their id. */
export const DashboardConfigDraftInput = Type.Object(
  { ...configFields, widgets: Type.Optional(nullable(Type.Array(DraftWidgetInput, { maxItems: 500 }))) },
  strict,
);

export type WidgetPosition = Static<typeof WidgetPosition>;
export type DashboardLayout = Static<typeof DashboardLayout>;
export type DashboardTheme = Static<typeof DashboardTheme>;
export type WidgetType = (typeof widgetTypes)[number];
/** A widget as stored: a published config's widgets carry their `type` (CHART by default). */
export type Widget = Static<typeof WidgetInput>;
/** The dashboard config (spec 2.2) as stored and read. */
export type DashboardConfig = Static<typeof DashboardConfigInput>;
export type DashboardDraft = Static<typeof DashboardConfigDraftInput>;

/** One problem of a config, at its JSON pointer (`/theme/primaryColor`). */
export interface ConfigProblem {
  path: string;
  message: string;
}

/**
 * What is wrong with a config about to be published (spec 4.4) by the schema of spec 2.2, one
 * problem per offending field, in the order found; none when it conforms.
 */
export function dashboardConfigProblems(config: unknown): ConfigProblem[] {
  return deepest([...Value.Errors(DashboardConfigInput, config)]);
}

/**
 * The index of the first widget whose id an earlier widget already has, or -1: widget ids are
 * unique within a config, which its JSON schema cannot say.
 */
export function repeatedWidgetId(widgets: readonly { id?: string | null }[]): number {
  const seen = new Set<string | null | undefined>();
  return widgets.findIndex((w) => {
    if (seen.has(w.id)) return true;
    seen.add(w.id);
    return false;
  });
}

/**
 * One problem per offending field: a nullable field reports "must be string" and "must be null"
 * at its own path plus a union failure at every parent; keep the deepest paths and fold the types.
 */
function deepest(
  errors: { instancePath: string; keyword: string; message: string; params?: unknown }[],
): ConfigProblem[] {
  const paths = [...new Set(errors.map((e) => e.instancePath))];
  const leaves = paths.filter((p) => !paths.some((q) => q !== p && q.startsWith(`${p}/`)));
  return leaves.map((path) => {
    const here = errors.filter((e) => e.instancePath === path);
    const types = here.filter((e) => e.keyword === 'type').map((e) => e.message.replace(/^must be /, ''));
    const other = here.find((e) => e.keyword !== 'type' && e.keyword !== 'anyOf');
    const message = other?.message ?? (types.length > 0 ? `must be ${types.join(' or ')}` : 'is invalid');
    return { path, message };
  });
}
