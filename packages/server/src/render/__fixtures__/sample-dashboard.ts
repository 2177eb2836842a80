import type { DashboardRenderInput } from '../types.ts';

/**
 * A six-widget dashboard exercising every kind of tile: a single number, a bar chart, a line
 * chart, a table drawn with text marks, a widget whose query failed and one whose query returned
 * no rows. Used by the render tests (against `sample-dashboard.png`) and by bench/render.
 * Returns a fresh copy each time, so a test may change it.
 */
export function sampleDashboard(): DashboardRenderInput {
  const vegaLite = 'https://vega.github.io/schema/vega-lite/v5.json';
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const orders = [310, 342, 398, 377, 421, 465, 440, 482, 530, 561, 604, 688];
  return {
    width: 1200,
    config: {
      title: 'Sales overview',
      description: 'Weekly figures for the sales team, rendered on the server without a browser.',
      layout: {
        breakpoints: { lg: 1200, md: 996, sm: 768, xs: 480, xxs: 0 },
        cols: { lg: 12, md: 10, sm: 6, xs: 4, xxs: 2 },
        margin: [12, 12],
        containerPadding: [16, 16],
        rowHeight: 30,
      },
      theme: {
        backgroundColor: '#f3f5f9',
        primaryColor: '#2f6fde',
        widgets: {
          backgroundColor: '#ffffff',
          padding: '14px',
          border: { color: '#d9dee7', radius: '10px', width: '1px', style: 'solid' },
          title: { color: '#14213d', fontSize: '15px', fontWeight: '600' },
          text: { color: '#27364b', secondaryColor: '#66768f' },
        },
      },
      widgets: [
        { id: 'revenue-total', position: { x: 0, y: 0, w: 3, h: 4 } },
        { id: 'revenue-by-region', position: { x: 3, y: 0, w: 5, h: 8 } },
        { id: 'orders-per-month', position: { x: 8, y: 0, w: 4, h: 8 } },
        { id: 'churn-forecast', position: { x: 0, y: 4, w: 3, h: 4 } },
        { id: 'top-products', position: { x: 0, y: 8, w: 6, h: 7 } },
        { id: 'refunds-by-day', position: { x: 6, y: 8, w: 6, h: 7 } },
      ],
    },
    content: {
      'revenue-total': {
        title: 'Total revenue',
        vegaSpec: {
          $schema: vegaLite,
          mark: { type: 'text', fontSize: 40, fontWeight: 600 },
          encoding: { text: { field: 'revenue', type: 'quantitative', format: '$,.0f' } },
        },
        rows: [{ revenue: 1284500 }],
      },
      'revenue-by-region': {
        title: 'Revenue by region',
        vegaSpec: {
          $schema: vegaLite,
          mark: { type: 'bar', cornerRadiusTopLeft: 3, cornerRadiusTopRight: 3 },
          encoding: {
            x: { field: 'region', type: 'nominal', sort: '-y', title: 'Region', axis: { labelAngle: 0 } },
            y: { field: 'revenue', type: 'quantitative', title: 'Revenue (USD)', axis: { format: '$,.2s' } },
          },
        },
        rows: [
          { region: 'North', revenue: 420000 },
          { region: 'South', revenue: 310000 },
          { region: 'East', revenue: 280000 },
          { region: 'West', revenue: 274500 },
        ],
      },
      'orders-per-month': {
        title: 'Orders per month',
        vegaSpec: {
          $schema: vegaLite,
          mark: { type: 'line', point: true },
          encoding: {
            x: { field: 'month', type: 'ordinal', sort: months, title: 'Month', axis: { labelAngle: 0 } },
            y: { field: 'orders', type: 'quantitative', title: 'Orders' },
          },
        },
        rows: months.map((month, i) => ({ month, orders: orders[i] })),
      },
      'churn-forecast': {
        title: 'Churn forecast',
        error: 'Query failed: member "customers.churn_score" is not defined in the data model',
      },
      'top-products': {
        title: 'Top products',
        vegaSpec: {
          $schema: vegaLite,
          transform: [
            { window: [{ op: 'row_number', as: 'rank' }] },
            { calculate: "format(datum.revenue, '$,.0f')", as: 'Revenue' },
            { calculate: "format(datum.units, ',')", as: 'Units' },
            { calculate: 'datum.product', as: 'Product' },
            { fold: ['Product', 'Units', 'Revenue'], as: ['column', 'value'] },
          ],
          mark: { type: 'text', align: 'left', baseline: 'middle' },
          encoding: {
            y: { field: 'rank', type: 'ordinal', axis: null },
            x: {
              field: 'column',
              type: 'nominal',
              sort: ['Product', 'Units', 'Revenue'],
              title: null,
              axis: { orient: 'top', labelAngle: 0, labelAlign: 'left', domain: false, ticks: false },
              scale: { align: 0, paddingInner: 0, paddingOuter: 0 },
            },
            text: { field: 'value', type: 'nominal' },
          },
        },
        rows: [
          { product: 'Trail running shoes', units: 1840, revenue: 239200 },
          { product: 'Waterproof jacket', units: 1215, revenue: 218700 },
          { product: 'Merino base layer', units: 2302, revenue: 161140 },
          { product: 'Headlamp 400', units: 3120, revenue: 124800 },
          { product: 'Trekking poles', units: 980, revenue: 88200 },
        ],
      },
      'refunds-by-day': {
        title: 'Refunds by day',
        vegaSpec: {
          $schema: vegaLite,
          mark: 'bar',
          encoding: {
            x: { field: 'day', type: 'temporal', title: 'Day' },
            y: { field: 'refunds', type: 'quantitative', title: 'Refunds' },
          },
        },
        rows: [],
      },
    },
  };
}
