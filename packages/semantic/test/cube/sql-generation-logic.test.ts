import { cubeSuite } from './harness.ts';
import { visitorModel, visitorTables } from './visitors.ts';

/** Cube's sql-generation-logic.test.ts: filter trees over the visitors data set (visitors.ts). */
const la = { timezone: 'America/Los_Angeles' };
const sources = (rows: [string | null, string][]) =>
  rows.map(([source, count]) => ({ 'visitors.source': source, 'visitors.visitor_count': count }));

cubeSuite({
  source: 'sql-generation-logic.test.ts',
  tables: visitorTables,
  model: visitorModel,
  cases: [
    {
      name: 'filter with operator OR',
      query: {
        measures: ['visitor_checkins.google_sourced_checkins'],
        filters: [
          {
            or: [
              { member: 'cards.id', operator: 'equals', values: ['3'] },
              { member: 'cards.id', operator: 'equals', values: ['1'] },
            ],
          },
        ],
        ...la,
      },
      expected: [{ 'visitor_checkins.google_sourced_checkins': '1' }],
    },
    {
      name: 'having and where filter in same operator OR',
      query: {
        measures: ['visitors.visitor_count'],
        dimensions: ['visitors.source'],
        filters: [
          {
            or: [
              { member: 'visitors.visitor_count', operator: 'gt', values: ['1'] },
              { member: 'visitors.source', operator: 'equals', values: ['google'] },
            ],
          },
        ],
      },
      expected: { error: 'You cannot use dimension and measure in same condition' },
    },
    {
      name: 'where filter with only one argument',
      query: {
        measures: ['visitors.visitor_count'],
        dimensions: ['visitors.source'],
        filters: [
          {
            and: [
              {
                and: [
                  {
                    or: [
                      { and: [{ member: 'visitors.source', operator: 'equals', values: ['some'] }] },
                      { and: [{ member: 'visitors.source', operator: 'equals', values: ['google'] }] },
                    ],
                  },
                ],
              },
            ],
          },
        ],
        order: { 'visitors.visitor_count': 'desc' },
        ...la,
      },
      expected: sources([
        ['some', '2'],
        ['google', '1'],
      ]),
    },
    {
      name: 'where filter without arguments',
      query: {
        measures: ['visitors.visitor_count'],
        dimensions: ['visitors.source'],
        filters: [
          {
            and: [
              {
                and: [
                  {
                    or: [
                      { and: [{ member: 'visitors.source', operator: 'equals', values: ['some'] }] },
                      { and: [] },
                    ],
                  },
                ],
              },
            ],
          },
        ],
        order: { 'visitors.visitor_count': 'desc' },
        ...la,
      },
      expected: sources([['some', '2']]),
    },
    {
      name: 'where filter without any arguments',
      query: {
        measures: ['visitors.visitor_count'],
        dimensions: ['visitors.source'],
        filters: [{ and: [{ and: [{ or: [{ and: [] }, { and: [] }] }] }] }],
        order: { 'visitors.visitor_count': 'desc' },
        ...la,
      },
      expected: sources([
        [null, '3'],
        ['some', '2'],
        ['google', '1'],
      ]),
    },
    {
      name: 'where filter with incorrect one arguments',
      query: {
        measures: ['visitors.visitor_count'],
        dimensions: ['visitors.source'],
        filters: [
          {
            and: [
              {
                or: [
                  // `measure` is not a filter key: the filter names no member
                  { and: [{ measure: 'visitors.source', operator: 'equals', values: ['some'] } as never] },
                  { and: [{ dimension: 'visitors_source', operator: 'equals', values: ['google'] }] },
                ],
              },
            ],
          },
        ],
      },
      expected: { error: 'Invalid member in filters' },
    },
    {
      name: "long named aliased cubes doesn't throws",
      query: {
        dimensions: ['mid_cube.id', 'left_cube.description'],
        measures: ['right_cube.total_sum'],
        order: [['mid_cube.id', 'asc']],
      },
      expected: ['ABC', 'BAC', 'BCA', 'CBA', 'CAB', 'ACB'].map((d, i) => ({
        'mid_cube.id': String(i + 1),
        'left_cube.description': d,
        'right_cube.total_sum': '2.5',
      })),
    },
    ...(
      [
        ['where filter with operators OR & AND 1', true],
        [
          'where filter with operators OR & AND (with filter based on dimensions not from select part clause)',
          false,
        ],
      ] as const
    ).map(([name, withCards]) => ({
      name,
      query: {
        measures: ['visitors.visitor_count'],
        dimensions: ['visitors.source', ...(withCards ? ['visitor_checkins.cardsCount'] : [])],
        filters: [
          {
            or: [
              {
                and: [
                  { member: 'visitors.source', operator: 'equals', values: ['some'] },
                  { member: 'visitor_checkins.cardsCount', operator: 'equals', values: ['0'] },
                ],
              },
              {
                and: [
                  { member: 'visitors.source', operator: 'equals', values: ['google'] },
                  { member: 'visitor_checkins.cardsCount', operator: 'equals', values: ['1'] },
                ],
              },
            ],
          },
        ] as never,
        // Cube's test orders by the count, descending, and lists google first; the rows are
        // the same, ordered here by source so that the order is defined
        order: [['visitors.source', 'asc']] as [string, 'asc'][],
        ...la,
      },
      expected: [
        {
          'visitors.source': 'google',
          ...(withCards ? { 'visitor_checkins.cardsCount': '1' } : {}),
          'visitors.visitor_count': '1',
        },
        {
          'visitors.source': 'some',
          ...(withCards ? { 'visitor_checkins.cardsCount': '0' } : {}),
          'visitors.visitor_count': '2',
        },
      ],
    })),
  ],
  left: [
    'having filter with operator OR 1, having filter with operators OR & AND (and its variant) (their model joins cards to visitors, which the sql-generation model shared here does not)',
  ],
});
