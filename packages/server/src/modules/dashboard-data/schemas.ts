import { FILTER_OPERATORS } from '@tessera/semantic';
import { Type } from 'typebox';
import { int32 } from '../workspace/common.ts';

/**
 * Shapes of the dashboard-data endpoint. Filters and time grains are the ones a
 * dashboard viewer sends and a scheduled notification stores (spec 2.5): `{member, value,
 * caseSensitive, startInclusive, endInclusive, operator}` and `{grain, member}`; `values` is
 * accepted as well for the multi-value Cube operators.
 */
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const strict = { additionalProperties: false } as const;
const member = Type.String({ minLength: 1, maxLength: 300 });
const value = Type.String({ maxLength: 10_000 });

/** Cube's filter operators, less `measureFilter`, which names no value a viewer could send. */
export const filterOperators = FILTER_OPERATORS.filter((o) => o !== 'measureFilter');

export const DashboardFilter = Type.Object(
  {
    member,
    operator: Type.Optional(nullable(Type.Union(filterOperators.map((o) => Type.Literal(o))))),
    value: Type.Optional(nullable(value)),
    values: Type.Optional(nullable(Type.Array(value, { maxItems: 1000 }))),
    caseSensitive: Type.Optional(nullable(Type.Boolean())),
    startInclusive: Type.Optional(nullable(Type.Boolean())),
    endInclusive: Type.Optional(nullable(Type.Boolean())),
  },
  strict,
);

export const timeGrains = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;

export const TimeGrain = Type.Object(
  {
    member,
    // Written out: a union of `timeGrains.map(Type.Literal)` (an array, not a tuple) is typed `never`.
    grain: Type.Union([
      Type.Literal('second'),
      Type.Literal('minute'),
      Type.Literal('hour'),
      Type.Literal('day'),
      Type.Literal('week'),
      Type.Literal('month'),
      Type.Literal('quarter'),
      Type.Literal('year'),
    ]),
  },
  strict,
);

export const WidgetDataParams = Type.Object({
  deploymentId: Type.Integer(int32),
  publicId: Type.String({ minLength: 1, maxLength: 64 }),
  widgetId: Type.String({ minLength: 1, maxLength: 200 }),
});

export const WidgetDataBody = Type.Object(
  {
    filters: Type.Optional(nullable(Type.Array(DashboardFilter, { maxItems: 100 }))),
    timeGrains: Type.Optional(nullable(Type.Array(TimeGrain, { maxItems: 50 }))),
    limit: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: 50_000 }))),
    offset: Type.Optional(nullable(Type.Integer({ minimum: 0, maximum: 10_000_000 }))),
    versionNumber: Type.Optional(nullable(Type.Integer(int32))),
    total: Type.Optional(
      nullable(
        Type.Boolean({
          description:
            'Semantic widgets: count the rows behind the page into `totalRows` (default true). False answers ' +
            '`totalRows: null` and spares the warehouse the second, counting statement (a viewer that draws the ' +
            'rows and never shows the count, such as the dashboard page).',
        }),
      ),
    ),
    renewQuery: Type.Optional(
      nullable(
        Type.Boolean({
          description:
            "Run the widget's query on the warehouse again instead of answering from the result cache (the tile menu's Refresh; Cube's `renewQuery`).",
        }),
      ),
    ),
  },
  strict,
);

export const WidgetData = Type.Object({
  widgetId: Type.String(),
  reportId: Type.Integer(),
  versionNumber: Type.Integer(),
  kind: Type.Union([Type.Literal('semantic'), Type.Literal('sql')]),
  query: Type.Unknown({ description: 'The Cube query as normalised and run, or the SQL-API text as run.' }),
  annotation: Type.Optional(Type.Unknown()),
  columns: Type.Optional(Type.Array(Type.Object({ name: Type.String(), column_type: Type.String() }))),
  data: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  lastRefreshTime: Type.String(),
  totalRows: nullable(Type.Integer()),
  notApplied: Type.Optional(
    Type.Array(
      Type.Object({
        kind: Type.Union([Type.Literal('filter'), Type.Literal('timeGrain')]),
        member: Type.String(),
        reason: Type.String(),
      }),
      {
        description:
          "SQL-API widgets: the dashboard filters and time grains this widget's SQL could not take (a member " +
          'not in its projection, a date range, an operator the wrapper cannot express), so that a viewer can ' +
          'show them as not applying to this tile.',
      },
    ),
  ),
});

export const DimensionValuesParams = Type.Object({
  deploymentId: Type.Integer(int32),
  publicId: Type.String({ minLength: 1, maxLength: 64 }),
});

export const DimensionValuesBody = Type.Object(
  {
    members: Type.Optional(
      nullable(
        Type.Array(member, {
          maxItems: 50,
          description: "Dimensions of the dashboard's widgets to list; default every one of them.",
        }),
      ),
    ),
    filters: Type.Optional(nullable(Type.Array(DashboardFilter, { maxItems: 100 }))),
    search: Type.Optional(
      nullable(Type.String({ maxLength: 200, description: 'Only values containing this text (any case).' })),
    ),
    limit: Type.Optional(
      nullable(Type.Integer({ minimum: 1, maximum: 1000, description: 'Values per member; default 500.' })),
    ),
    versionNumber: Type.Optional(nullable(Type.Integer(int32))),
  },
  strict,
);

export const DimensionValues = Type.Object({
  versionNumber: Type.Integer(),
  members: Type.Array(
    Type.Object({
      member: Type.String(),
      /** The dimension's type in the model: `string`, `number`, `time`, `boolean`, ... */
      type: Type.String(),
      values: Type.Array(Type.String()),
      /** False when there are more values than `limit`: a viewer then offers a text box, not a list. */
      complete: Type.Boolean(),
      notApplied: Type.Array(Type.String(), {
        description:
          "Members of the dashboard's filters this list is not narrowed by: the model has no join " +
          "between their cube and this member's, so the list is read without them (and says so).",
      }),
    }),
  ),
});

// --- a report's rows (the report page's, for a user with view access) -------------------------

export const ReportDataParams = Type.Object({
  deploymentId: Type.Integer(int32),
  reportId: Type.Integer(int32),
});

export const ReportDataBody = Type.Object(
  {
    limit: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: 50_000 }))),
    offset: Type.Optional(nullable(Type.Integer({ minimum: 0, maximum: 10_000_000 }))),
  },
  strict,
);

export const ReportData = Type.Object({
  reportId: Type.Integer(),
  kind: Type.Union([Type.Literal('semantic'), Type.Literal('sql')]),
  query: Type.Unknown({ description: 'The Cube query as normalised and run, or the SQL-API text as run.' }),
  annotation: Type.Optional(Type.Unknown()),
  columns: Type.Optional(Type.Array(Type.Object({ name: Type.String(), column_type: Type.String() }))),
  data: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  lastRefreshTime: Type.String(),
  totalRows: nullable(Type.Integer()),
});
