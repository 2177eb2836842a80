import { cubeSuite } from './harness.ts';
import { visitorTables } from './visitors.ts';

/**
 * Cube's sql-generation cases that depend on context variables in cube SQL: SECURITY_CONTEXT
 * (a value and a list, through `.filter(column)` and a callback), FILTER_PARAMS (a column and a
 * `(from, to)` callback), FILTER_GROUP, and another cube's `sql()`. The model is a JavaScript
 * file, the form Cube's own test writes it in, reduced to the cubes these cases read.
 */
const model = `
cube('visitors', {
  sql: \`
    select * from visitors
    WHERE \${SECURITY_CONTEXT.source.filter('source')}
      AND \${SECURITY_CONTEXT.sourceArray.filter((list) => \`source in (\${list.join(', ')})\`)}
  \`,

  joins: {
    visitor_checkins: {
      relationship: 'hasMany',
      sql: \`\${CUBE}.id = \${visitor_checkins}.visitor_id\`,
    },
  },

  measures: {
    visitor_revenue: {
      type: 'sum',
      sql: 'amount',
      filters: [{ sql: \`\${CUBE}.source = 'some'\` }],
    },
  },

  dimensions: {
    id: { type: 'number', sql: 'id', primaryKey: true },
    source: { type: 'string', sql: 'source' },
    created_at: { type: 'time', sql: 'created_at' },
  },
});

cube('visitor_checkins', {
  sql: \`
    select visitor_checkins.* from visitor_checkins
    left join visitors on visitor_checkins.visitor_id = visitors.id
    WHERE \${FILTER_PARAMS.visitor_checkins.created_at.filter('visitor_checkins.created_at')}
      AND \${FILTER_GROUP(
        FILTER_PARAMS.visitor_checkins.created_at.filter("(visitor_checkins.created_at - INTERVAL '3 DAY')"),
        FILTER_PARAMS.visitor_checkins.source.filter('visitor_checkins.source'),
      )}
      AND \${SECURITY_CONTEXT.source.filter('visitors.source')}
      AND \${SECURITY_CONTEXT.sourceArray.filter((list) => \`visitors.source in (\${list.join(', ')})\`)}
  \`,

  measures: {
    visitor_checkins_count: { type: 'count' },
    revenue_per_checkin: {
      type: 'number',
      sql: \`\${visitors.visitor_revenue} / \${visitor_checkins_count}\`,
    },
  },

  dimensions: {
    id: { type: 'number', sql: 'id', primaryKey: true },
    visitor_id: { type: 'number', sql: 'visitor_id' },
    source: { type: 'string', sql: 'source' },
    created_at: { type: 'time', sql: 'created_at' },
  },
});

cube('ReferenceVisitors', {
  sql: \`
    select * from \${visitors.sql()} as t
    WHERE \${FILTER_PARAMS.ReferenceVisitors.createdAt.filter(\`(t.created_at + interval '28 day')\`)}
      AND \${FILTER_PARAMS.ReferenceVisitors.createdAt.filter(
        (from, to) => \`(t.created_at + interval '28 day') >= \${from} AND (t.created_at + interval '28 day') <= \${to}\`,
      )}
  \`,

  measures: {
    count: { type: 'count' },
    googleSourcedCount: {
      type: 'count',
      filters: [{ sql: \`\${CUBE}.source = 'google'\` }],
    },
  },

  dimensions: {
    createdAt: { type: 'time', sql: 'created_at' },
  },
});
`;

const LA = 'America/Los_Angeles';
const checkins = (filters: unknown[]) => ({
  measures: ['visitor_checkins.visitor_checkins_count'],
  timezone: LA,
  filters: filters as never,
});

cubeSuite({
  source: 'sql-generation.test.ts (context variables)',
  notOn: { mysql: "PostgreSQL's interval literals (`interval '28 day'`) in the model's FILTER_PARAMS" },
  tables: visitorTables,
  javascript: true,
  model,
  cases: [
    {
      name: 'security context',
      query: { measures: ['visitor_checkins.revenue_per_checkin'], timezone: LA },
      securityContext: { source: 'some' },
      expected: [{ 'visitor_checkins.revenue_per_checkin': '60' }],
    },
    {
      name: 'security context array',
      query: { measures: ['visitor_checkins.revenue_per_checkin'], timezone: LA },
      securityContext: { sourceArray: ['some', 'google'] },
      expected: [{ 'visitor_checkins.revenue_per_checkin': '50' }],
    },
    {
      name: 'calculated join (no security context: every condition holds)',
      query: { measures: ['visitor_checkins.revenue_per_checkin'], timezone: LA },
      expected: [{ 'visitor_checkins.revenue_per_checkin': '50' }],
    },
    {
      name: 'reference cube sql',
      query: {
        measures: ['ReferenceVisitors.count'],
        timezone: LA,
        timeDimensions: [
          { dimension: 'ReferenceVisitors.createdAt', dateRange: ['2017-01-01', '2017-01-30'] },
        ],
      },
      expected: [{ 'ReferenceVisitors.count': '1' }],
    },
    {
      name: 'Filtered count without primaryKey',
      query: {
        measures: ['ReferenceVisitors.googleSourcedCount'],
        timezone: LA,
        timeDimensions: [
          { dimension: 'ReferenceVisitors.createdAt', dateRange: ['2016-12-01', '2017-03-30'] },
        ],
      },
      expected: [{ 'ReferenceVisitors.googleSourcedCount': '1' }],
    },
    {
      name: 'filter group',
      query: checkins([
        {
          or: [
            {
              member: 'visitor_checkins.created_at',
              operator: 'inDateRange',
              values: ['2017-01-01', '2017-01-10'],
            },
            { member: 'visitor_checkins.source', operator: 'equals', values: ['google_123_123'] },
          ],
        },
      ]),
      expected: [{ 'visitor_checkins.visitor_checkins_count': '4' }],
    },
    {
      name: 'filter group sub filter',
      query: checkins([
        {
          and: [
            {
              or: [
                {
                  member: 'visitor_checkins.created_at',
                  operator: 'inDateRange',
                  values: ['2017-01-01', '2017-01-10'],
                },
                { member: 'visitor_checkins.source', operator: 'equals', values: ['google_123_123'] },
              ],
            },
            { member: 'visitor_checkins.visitor_id', operator: 'gte', values: ['1'] },
          ],
        },
        { member: 'visitor_checkins.visitor_id', operator: 'lte', values: ['100'] },
      ]),
      expected: [{ 'visitor_checkins.visitor_checkins_count': '4' }],
    },
    {
      name: 'filter group simple filter',
      query: checkins([
        {
          member: 'visitor_checkins.created_at',
          operator: 'inDateRange',
          values: ['2017-01-01', '2017-01-10'],
        },
      ]),
      expected: [{ 'visitor_checkins.visitor_checkins_count': '4' }],
    },
    ...(['filter group double tree', 'filter group double tree and non matching filter'] as const).map(
      (name) => ({
        name,
        query: checkins([
          {
            or: [
              {
                and: [
                  {
                    member: 'visitor_checkins.created_at',
                    operator: 'inDateRange',
                    values: ['2017-01-01', '2017-01-10'],
                  },
                  { member: 'visitor_checkins.source', operator: 'equals', values: ['google'] },
                ],
              },
              {
                and: [
                  {
                    member: 'visitor_checkins.created_at',
                    operator: 'inDateRange',
                    values: ['2017-01-05', '2017-01-10'],
                  },
                  { member: 'visitor_checkins.source', operator: 'equals', values: [null] },
                ],
              },
            ],
          },
          ...(name.endsWith('filter')
            ? [{ member: 'visitor_checkins.visitor_id', operator: 'equals', values: ['1'] }]
            : []),
        ]),
        expected: [{ 'visitor_checkins.visitor_checkins_count': '1' }],
      }),
    ),
  ],
});
