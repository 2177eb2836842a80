import { describe, expect, it } from 'vitest';
import {
  compileModel,
  compileModelAsync,
  compileModelOrThrow,
  compileQuery,
  getMeta,
} from '../../src/index.ts';
import { cubeSuite } from './harness.ts';
import { visitorTables } from './visitors.ts';

/**
 * Model constructs of Cube's sql-generation tests that need more than the shared visitors model:
 * SQL_UTILS in member SQL and `{CUBE}.member` in access policies, on the visitors data (times are
 * midnight UTC, the evening before in Los Angeles).
 */
const la = { timezone: 'America/Los_Angeles' };
const day = (d: string) => `2017-01-${d}T00:00:00.000`;
const sqlUtilsQuery = (cube: string) => ({
  measures: [`${cube}.visitor_count`],
  timeDimensions: [
    { dimension: `${cube}.createdAtSqlUtils`, granularity: 'day', dateRange: ['2017-01-01', '2017-01-10'] },
  ],
  order: [[`${cube}.createdAtSqlUtils`, 'asc']] as [string, 'asc'][],
  ...la,
});
// Cube's `sql utils` rows: the dimension is converted by convertTz and, as a time dimension, once
// more; midnight UTC stays on the same Los Angeles day either way.
const sqlUtilsRows = (cube: string) =>
  (
    [
      ['02', '1'],
      ['04', '1'],
      ['05', '1'],
      ['06', '2'],
    ] as const
  ).map(([d, n]) => ({ [`${cube}.createdAtSqlUtils.day`]: day(d), [`${cube}.visitor_count`]: n }));

cubeSuite({
  source: 'sql-generation.test.ts (SQL_UTILS, {CUBE} in access policies; YAML)',
  tables: visitorTables,
  model: `
cubes:
  - name: visitors
    sql_table: visitors
    measures:
      - name: visitor_count
        type: number
        sql: count(*)
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: source
        type: string
        sql: source
      - name: created_at
        type: time
        sql: created_at
      - name: createdAtSqlUtils
        type: time
        sql: "{SQL_UTILS.convertTz('created_at')}"
      - name: createdYearLocal
        type: number
        sql: "EXTRACT(year FROM {SQL_UTILS.convertTz('{CUBE}.created_at')})"
  - name: some_visitors
    sql_table: visitors
    access_policy:
      - group: "*"
        row_level:
          filters:
            - member: "{CUBE}.source"
              operator: equals
              values: [some]
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: source
        type: string
        sql: source
`,
  cases: [
    { name: 'sql utils', query: sqlUtilsQuery('visitors'), expected: sqlUtilsRows('visitors') },
    {
      name: 'SQL_UTILS.convertTz inside an expression: the Los Angeles year of each visit',
      query: {
        measures: ['visitors.visitor_count'],
        dimensions: ['visitors.createdYearLocal'],
        order: [['visitors.createdYearLocal', 'asc']],
        ...la,
      },
      expected: [
        { 'visitors.createdYearLocal': '2016', 'visitors.visitor_count': '1' },
        { 'visitors.createdYearLocal': '2017', 'visitors.visitor_count': '5' },
      ],
    },
    {
      name: 'SQL_UTILS.convertTz follows the query time zone (UTC: no shift)',
      query: { ...sqlUtilsQuery('visitors'), timezone: 'UTC' },
      expected: [
        { 'visitors.createdAtSqlUtils.day': day('03'), 'visitors.visitor_count': '1' },
        { 'visitors.createdAtSqlUtils.day': day('05'), 'visitors.visitor_count': '1' },
        { 'visitors.createdAtSqlUtils.day': day('06'), 'visitors.visitor_count': '1' },
        { 'visitors.createdAtSqlUtils.day': day('07'), 'visitors.visitor_count': '2' },
      ],
    },
    {
      name: 'row-level policy filter on {CUBE}.source',
      query: { measures: ['some_visitors.count'], dimensions: ['some_visitors.source'] },
      expected: [{ 'some_visitors.source': 'some', 'some_visitors.count': '2' }],
    },
  ],
});

cubeSuite({
  source: 'sql-generation.test.ts (SQL_UTILS, CUBE in access policies; JavaScript)',
  tables: visitorTables,
  javascript: true,
  model: `
cube('visitors', {
  sql_table: 'visitors',
  access_policy: [
    { role: '*', row_level: { filters: [{ member: \`\${CUBE}.source\`, operator: 'equals', values: ['some'] }] } },
  ],
  measures: { visitor_count: { type: 'number', sql: 'count(*)' } },
  dimensions: {
    id: { type: 'number', sql: 'id', primaryKey: true },
    source: { type: 'string', sql: 'source' },
    createdAtSqlUtils: { type: 'time', sql: SQL_UTILS.convertTz('created_at') },
  },
});
`,
  cases: [
    {
      name: 'sql utils, under a row-level policy on CUBE.source (JavaScript)',
      query: sqlUtilsQuery('visitors'),
      expected: [
        { 'visitors.createdAtSqlUtils.day': day('02'), 'visitors.visitor_count': '1' },
        { 'visitors.createdAtSqlUtils.day': day('04'), 'visitors.visitor_count': '1' },
      ],
    },
  ],
});

// Cube's fixture places every visitor at latitude 120.120; two share a longitude.
const longitudes = ['10.60', '40.60', '58.10', '58.60', '70.60', '70.60'];
const placedVisitors = {
  ...visitorTables,
  visitors: {
    columns: { ...visitorTables.visitors!.columns, latitude: 'TEXT', longitude: 'TEXT' },
    rows: visitorTables.visitors!.rows.map((r, i) => [...r, '120.120', longitudes[i]]),
  },
} satisfies typeof visitorTables;

cubeSuite({
  source: 'sql-generation.test.ts (geo dimension)',
  tables: placedVisitors,
  model: `
cubes:
  - name: visitors
    sql_table: visitors
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: location
        type: geo
        latitude:
          sql: latitude
        longitude:
          sql: "{CUBE}.longitude"
views:
  - name: places
    cubes:
      - join_path: visitors
        includes: [location, count]
`,
  cases: [
    {
      name: 'builds geo dimension',
      query: { dimensions: ['visitors.location'], order: [['visitors.location', 'asc']], ...la },
      expected: ['10.60', '40.60', '58.10', '58.60', '70.60'].map((lng) => ({
        'visitors.location': `120.120,${lng}`,
      })),
    },
    {
      name: 'geo dimension with a measure, through a view, filtered on its value',
      query: {
        measures: ['places.count'],
        dimensions: ['places.location'],
        filters: [{ member: 'places.location', operator: 'equals', values: ['120.120,70.60'] }],
      },
      expected: [{ 'places.location': '120.120,70.60', 'places.count': '2' }],
    },
  ],
});

// `split: true` (Cube's CubeValidator viewSchema; CubeSymbols puts the entry's members in a view
// of their own named `<view>_<alias or cube>`).
const splitModel = `
cubes:
  - name: visitors
    sql_table: visitors
    joins:
      - name: visitor_checkins
        relationship: one_to_many
        sql: "{CUBE}.id = {visitor_checkins}.visitor_id"
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: source
        type: string
        sql: source
  - name: visitor_checkins
    sql_table: visitor_checkins
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: source
        type: string
        sql: source
views:
  - name: traffic
    cubes:
      - join_path: visitors
        includes: [count, source]
      - join_path: visitors.visitor_checkins
        split: true
        includes: [count, source]
      - join_path: visitors.visitor_checkins
        alias: checkin_ids
        split: true
        includes: [id]
`;

cubeSuite({
  source: 'views with split: true',
  tables: visitorTables,
  model: splitModel,
  cases: [
    {
      name: 'the view keeps the entries without split',
      query: {
        measures: ['traffic.count'],
        dimensions: ['traffic.source'],
        order: [['traffic.source', 'asc']],
      },
      expected: [
        { 'traffic.source': 'google', 'traffic.count': '1' },
        { 'traffic.source': 'some', 'traffic.count': '2' },
        { 'traffic.source': null, 'traffic.count': '3' },
      ],
    },
    {
      name: 'a split entry is a view of its own, reached along its join path',
      query: {
        measures: ['traffic_visitor_checkins.count'],
        dimensions: ['traffic_visitor_checkins.source'],
        order: [['traffic_visitor_checkins.source', 'asc']],
      },
      expected: [
        { 'traffic_visitor_checkins.source': 'google', 'traffic_visitor_checkins.count': '1' },
        { 'traffic_visitor_checkins.source': null, 'traffic_visitor_checkins.count': '5' },
      ],
    },
    {
      name: 'a split entry with an alias is named after the alias',
      query: { dimensions: ['traffic_checkin_ids.id'], order: [['traffic_checkin_ids.id', 'asc']], limit: 2 },
      expected: [{ 'traffic_checkin_ids.id': '1' }, { 'traffic_checkin_ids.id': '2' }],
    },
    {
      name: 'a split member is not a member of the view it was split from',
      query: { dimensions: ['traffic.id'] },
      expected: { error: 'traffic.id' },
    },
  ],
});

// A view's own members: Cube keeps those whose SQL is one reference to a member of its cubes
// (CubeEvaluator.prepareMembers), which stand for that member.
const ownMembersModel = `${splitModel.slice(0, splitModel.indexOf('views:'))}views:
  - name: visits
    cubes:
      - join_path: visitors
        includes: [source]
      - join_path: visitors.visitor_checkins
        prefix: true
        includes: [source]
    measures:
      - name: visits
        type: count
        title: Visits
        sql: "{visitors.count}"
      - name: checkins
        type: count
        sql: "{visitor_checkins.count}"
    dimensions:
      - name: origin
        type: string
        sql: "{CUBE.source}"
`;

cubeSuite({
  source: 'views with members of their own',
  tables: visitorTables,
  model: ownMembersModel,
  cases: [
    {
      name: "a view's own measures and dimension stand for the members they name",
      query: {
        measures: ['visits.visits', 'visits.checkins'],
        dimensions: ['visits.origin'],
        order: [['visits.origin', 'asc']],
      },
      expected: [
        { 'visits.origin': 'google', 'visits.visits': '1', 'visits.checkins': '1' },
        { 'visits.origin': 'some', 'visits.visits': '2', 'visits.checkins': '5' },
        { 'visits.origin': null, 'visits.visits': '3', 'visits.checkins': '0' },
      ],
    },
  ],
});

// Hierarchies on a cube (levels of its own and of a joined cube) and in a view, and view folders
// (Cube's CubeEvaluator.prepareHierarchies / prepareFolders, CubeToMetaTransformer).
const browsingModel = `
cubes:
  - name: users
    sql_table: users
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: country
        type: string
        sql: country
  - name: orders
    sql_table: orders
    joins:
      - name: users
        relationship: many_to_one
        sql: "{CUBE}.user_id = {users.id}"
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: status
        type: string
        sql: status
      - name: city
        type: string
        sql: city
      - name: secret
        type: string
        sql: secret
        public: false
    hierarchies:
      - name: place
        title: Where
        levels: [users.country, "{CUBE}.city"]
      - name: lifecycle
        levels: [status, secret]
      - name: hidden
        public: false
        levels: [status]
views:
  - name: sales
    cubes:
      - join_path: orders
        includes: [count, status, place]
      - join_path: orders.users
        prefix: true
        includes: [country]
    folders:
      - name: Figures
        includes: [count]
      - name: Details
        includes:
          - status
          - name: Geography
            includes: [users_country, city, place]
`;

// Cube's rolling-window offset test: FILTER_PARAMS on the time dimension gets the query's date
// range, never the window's trailing/leading/offset (checked on the bound parameters below).
const balancesModel = `
cubes:
  - name: balances_fp
    sql: "select * from visitors WHERE {FILTER_PARAMS.balances_fp.createdAt.filter('created_at')}"
    measures:
      - name: begBalance
        type: sum
        sql: amount
        rolling_window:
          trailing: unbounded
          offset: start
      - name: total
        type: sum
        sql: amount
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: createdAt
        type: time
        sql: created_at
`;
const balancesQuery = (measure: string) => ({
  measures: [`balances_fp.${measure}`],
  timeDimensions: [{ dimension: 'balances_fp.createdAt', dateRange: ['2017-01-01', '2017-01-30'] }],
  timezone: 'UTC',
});

cubeSuite({
  source: 'rolling-window-offset.test.ts (FILTER_PARAMS)',
  tables: visitorTables,
  model: balancesModel,
  cases: [
    {
      // the cube's rows are January's only: nothing lies before the window's start
      name: 'FILTER_PARAMS does not leak rolling window config into params',
      query: balancesQuery('begBalance'),
      expected: [{ 'balances_fp.begBalance': null }],
    },
    {
      name: 'FILTER_PARAMS narrows the cube to the date range',
      query: balancesQuery('total'),
      expected: [{ 'balances_fp.total': '1500' }],
    },
  ],
});

describe('FILTER_PARAMS under a rolling window', () => {
  it('binds the date range bounds and nothing of the window', () => {
    const model = compileModelOrThrow([{ path: 'model/balances.yml', content: balancesModel }]);
    for (const dialect of ['duckdb', 'postgres'] as const) {
      const { params } = compileQuery(model, balancesQuery('begBalance'), { dialect, securityContext: {} });
      expect(params).not.toContain('unbounded');
      expect(params).not.toContain('start');
      expect(params).not.toContain('end');
      expect(params.map(String).some((p) => p.startsWith('2017-01-01'))).toBe(true);
    }
  });
});

describe('/v1/meta of these constructs', () => {
  const meta = (content: string, javascript = false) =>
    getMeta(compileModelOrThrow([{ path: `model/m.${javascript ? 'js' : 'yml'}`, content }]), {}).cubes;

  it('lists hierarchies and folders as Cube does, on cubes and views', () => {
    const cubes = meta(browsingModel);
    const shape = (name: string) => {
      const c = cubes.find((x) => x.name === name)!;
      return { hierarchies: c.hierarchies, folders: c.folders, nestedFolders: c.nestedFolders };
    };
    expect(shape('users')).toEqual({ hierarchies: [], folders: [], nestedFolders: [] });
    expect(shape('orders')).toEqual({
      hierarchies: [
        { name: 'orders.place', title: 'Where', levels: ['users.country', 'orders.city'], public: true },
        // a level this context may not see (secret is not public) is left out; so is `hidden`
        { name: 'orders.lifecycle', levels: ['orders.status'], public: true },
      ],
      folders: [],
      nestedFolders: [],
    });
    // `place` brings its level city along; users.country is in the view as users_country
    expect(cubes.find((c) => c.name === 'sales')!.dimensions.map((d) => d.name)).toEqual([
      'sales.status',
      'sales.city',
      'sales.users_country',
    ]);
    expect(shape('sales')).toEqual({
      hierarchies: [
        {
          name: 'sales.place',
          title: 'Where',
          levels: ['sales.users_country', 'sales.city'],
          public: true,
          aliasMember: 'orders.place',
        },
      ],
      folders: [
        { name: 'Figures', members: ['sales.count'] },
        { name: 'Details', members: ['sales.status', 'sales.users_country', 'sales.city', 'sales.place'] },
      ],
      nestedFolders: [
        { name: 'Figures', members: ['sales.count'] },
        {
          name: 'Details',
          members: [
            'sales.status',
            { name: 'Geography', members: ['sales.users_country', 'sales.city', 'sales.place'] },
          ],
        },
      ],
    });
  });

  it('reads hierarchies and folders from JavaScript models too', async () => {
    const { model, errors } = await compileModelAsync([
      {
        path: 'model/m.js',
        content: `
cube('orders', {
  sql_table: 'orders',
  measures: { count: { type: 'count' } },
  dimensions: {
    id: { type: 'number', sql: 'id', primaryKey: true },
    status: { type: 'string', sql: 'status' },
    city: { type: 'string', sql: 'city' },
  },
  hierarchies: { place: { levels: [CUBE.city, status] } },
});
view('sales', {
  cubes: [{ join_path: orders, includes: '*' }],
  folders: [{ name: 'All', includes: '*' }],
});
`,
      },
    ]);
    expect(errors).toEqual([]);
    const cubes = getMeta(model, {}).cubes;
    expect(cubes.map((c) => [c.name, c.hierarchies.map((h) => [h.name, h.levels])])).toEqual([
      ['orders', [['orders.place', ['orders.city', 'orders.status']]]],
      ['sales', [['sales.place', ['sales.city', 'sales.status']]]],
    ]);
    expect(cubes[1]!.folders).toEqual([
      { name: 'All', members: ['sales.count', 'sales.id', 'sales.status', 'sales.city', 'sales.place'] },
    ]);
  });

  it("lists a view's own members with the member they stand for", () => {
    const visits = meta(ownMembersModel).find((c) => c.name === 'visits')!;
    expect([...visits.measures, ...visits.dimensions].map((m) => [m.name, m.title, m.aliasMember])).toEqual([
      ['visits.visits', 'Visits Visits', 'visitors.count'],
      ['visits.checkins', 'Visits Checkins', 'visitor_checkins.count'],
      ['visits.source', 'Visits Source', 'visitors.source'],
      ['visits.visitor_checkins_source', 'Visits Visitor Checkins Source', 'visitor_checkins.source'],
      ['visits.origin', 'Visits Origin', 'visitors.source'],
    ]);
  });

  it('lists split views next to the view they come from', () => {
    const model = compileModelOrThrow([{ path: 'model/traffic.yml', content: splitModel }]);
    const views = getMeta(model, {})
      .cubes.filter((c) => c.type === 'view')
      .map((c) => [c.name, [...c.measures, ...c.dimensions].map((m) => [m.name, m.aliasMember])]);
    expect(views).toEqual([
      [
        'traffic',
        [
          ['traffic.count', 'visitors.count'],
          ['traffic.source', 'visitors.source'],
        ],
      ],
      [
        'traffic_visitor_checkins',
        [
          ['traffic_visitor_checkins.count', 'visitor_checkins.count'],
          ['traffic_visitor_checkins.source', 'visitor_checkins.source'],
        ],
      ],
      ['traffic_checkin_ids', [['traffic_checkin_ids.id', 'visitor_checkins.id']]],
    ]);
  });

  it('lists a geo dimension with type geo, on its cube and through a view', () => {
    const model = compileModelOrThrow([
      {
        path: 'model/places.yml',
        content: `cubes:
  - name: visitors
    sql_table: visitors
    dimensions:
      - name: location
        type: geo
        latitude: {sql: latitude}
        longitude: {sql: longitude}
views:
  - name: places
    cubes:
      - join_path: visitors
        includes: [location]
`,
      },
    ]);
    const dims = getMeta(model, {}).cubes.map((c) => c.dimensions.map((d) => [d.name, d.type]));
    expect(dims).toEqual([[['visitors.location', 'geo']], [['places.location', 'geo']]]);
  });
});

describe('model errors of these constructs (file, line, member)', () => {
  const errorsOf = (dimensions: string) =>
    compileModel([
      {
        path: 'model/visitors.yml',
        content: `cubes:
  - name: visitors
    sql_table: visitors
    dimensions:
      - name: created_at
        type: time
        sql: created_at
      - name: source
        type: string
        sql: source
${dimensions}`,
      },
    ]).errors.map((e) => ({ line: e.line, cube: e.cube, member: e.member, message: e.message }));

  it('a granularity reference to an unknown granularity or to a non-time dimension', () => {
    expect(
      errorsOf(`      - name: fortnight
        type: time
        sql: "{created_at.fortnight}"
      - name: source_month
        type: string
        sql: "{visitors.source.month}"`),
    ).toEqual([
      {
        line: 11,
        cube: 'visitors',
        member: 'fortnight',
        message: '{visitors.created_at.fortnight}: visitors.created_at has no granularity fortnight',
      },
      {
        line: 14,
        cube: 'visitors',
        member: 'source_month',
        message: '{visitors.source.month}: visitors.source is not a time dimension',
      },
    ]);
  });

  it('split together with prefix, and a split view taking a taken name', () => {
    const { errors } = compileModel([
      {
        path: 'model/traffic.yml',
        content: `${splitModel}
  - name: traffic_visitors
    cubes:
      - join_path: visitors
        includes: [count]
  - name: other
    cubes:
      - join_path: visitors
        includes: [count]
      - join_path: visitors.visitor_checkins
        split: true
        prefix: true
        includes: [source]
  - name: more
    cubes:
      - join_path: visitors
        includes: [source]
      - join_path: visitors
        alias: visitors
        split: true
        includes: [count]
  - name: more_visitors
    cubes:
      - join_path: visitors
        includes: [count]
`,
      },
    ]);
    expect(errors.map((e) => [e.line, e.cube, e.message])).toEqual([
      [54, 'other', 'Using split together with prefix is not supported'],
      [58, 'more_visitors', 'Split view name more_visitors is already taken'],
    ]);
  });

  it('split in a view with an access_policy, which the split view would not carry', () => {
    const { errors } = compileModel([
      {
        path: 'model/traffic.yml',
        content: `${splitModel}
    access_policy:
      - group: analysts
        row_level:
          filters:
            - member: source
              operator: equals
              values: [google]
`,
      },
    ]);
    expect(errors.map((e) => [e.cube, e.message])).toEqual([
      [
        'traffic',
        'Using split in a view with an access_policy is not supported: the split view would not carry the policy',
      ],
      [
        'traffic',
        'Using split in a view with an access_policy is not supported: the split view would not carry the policy',
      ],
    ]);
  });

  it('a hierarchy level that is not a dimension, a folder member the view lacks, a clashing name', () => {
    const { errors } = compileModel([
      {
        path: 'model/m.yml',
        content: `cubes:
  - name: orders
    sql_table: orders
    measures:
      - name: count
        type: count
    dimensions:
      - name: status
        type: string
        sql: status
    hierarchies:
      - name: by_count
        levels: [count, status]
      - name: status
        levels: [status]
views:
  - name: sales
    cubes:
      - join_path: orders
        includes: [status, by_count]
    folders:
      - name: Main
        includes: [status, nope]
`,
      },
    ]);
    expect(errors.map((e) => [e.line, e.cube, e.member, e.message])).toEqual([
      [14, 'orders', 'status', 'status is defined more than once'],
      [12, 'orders', 'by_count', 'Hierarchy level orders.count is not a dimension'],
      [22, 'sales', 'nope', 'Member nope included in folder Main not found'],
    ]);
  });

  it('min date subquery with error: Cube raises it at query time, Tessera when the model compiles', () => {
    const { errors } = compileModel([
      {
        path: 'model/visitors.yml',
        content: `cubes:
  - name: visitors
    sql_table: visitors
    joins:
      - name: visitor_checkins
        relationship: one_to_many
        sql: "{CUBE}.id = {visitor_checkins}.visitor_id"
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: minVisitorCheckinDate1
        type: time
        sql: "{visitor_checkins.minDate1}"
        sub_query: true
  - name: visitor_checkins
    sql_table: visitor_checkins
    measures:
      - name: minDate
        type: min
        sql: created_at
`,
      },
    ]);
    expect(errors.map((e) => [e.line, e.cube, e.member, e.message])).toEqual([
      [
        15,
        'visitors',
        'minVisitorCheckinDate1',
        'Unknown member reference {visitor_checkins.minDate1}: visitor_checkins.minDate1 does not exist',
      ],
    ]);
  });

  it('view members a view would own, or that name what it cannot reach', () => {
    const { errors } = compileModel([
      {
        path: 'model/m.yml',
        content: `${ownMembersModel}
    segments:
      - name: doubled
        sql: "{visits} * 2"
  - name: narrow
    cubes:
      - join_path: visitor_checkins
        includes: [count]
    measures:
      - name: people
        sql: "{visitors.count}"
    dimensions:
      - name: n
        sql: "{count}"
`,
      },
    ]);
    expect(errors.map((e) => [e.cube, e.member, e.message])).toEqual([
      [
        'visits',
        'doubled',
        "View visits defines its own member doubled: a view member's sql must be one reference to a member of its cubes ({cube.member})",
      ],
      ['narrow', 'people', '{visitors.count} is not a member of a cube on the join paths of view narrow'],
      ['narrow', 'n', 'n is listed under dimensions but visitor_checkins.count is a measure'],
    ]);
    expect(errors.every((e) => e.file === 'model/m.yml' && e.line !== null)).toBe(true);
  });

  it('a geo dimension without latitude or longitude', () => {
    const errors = errorsOf(`      - name: location
        type: geo
        latitude:
          sql: lat`);
    expect(errors).toEqual([
      { line: 11, cube: 'visitors', member: 'location', message: 'Geo dimension needs longitude: {sql}' },
    ]);
  });

  it('SQL_UTILS other than convertTz(sql)', () => {
    const errors = errorsOf(`      - name: shifted
        type: time
        sql: "{SQL_UTILS.dateAdd('created_at')}"`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ line: 13, cube: 'visitors', member: 'shifted' });
    expect(errors[0]!.message).toContain("SQL_UTILS offers convertTz('sql') only");
  });

  it('a policy filter on an unknown {CUBE} member', () => {
    const { errors } = compileModel([
      {
        path: 'model/visitors.yml',
        content: `cubes:
  - name: visitors
    sql_table: visitors
    access_policy:
      - group: "*"
        row_level:
          filters:
            - member: "{CUBE}.nope"
              operator: equals
              values: [x]
    dimensions:
      - name: source
        type: string
        sql: source
`,
      },
    ]);
    expect(errors.map((e) => [e.file, e.cube, e.message])).toEqual([
      ['model/visitors.yml', 'visitors', 'access_policy: unknown member {CUBE}.nope'],
    ]);
  });
});
