import type { Principal } from '../auth/principal.ts';
import type { Application } from '../composition.ts';

/**
 * The demo deployment's dashboard: a workbook "Demo shop" with six reports on the sample data
 * (orders, line items, products, customers) and its published dashboard, made through the same
 * services as `POST /reports`, `POST /workbooks` and `POST /workbooks/{id}/publish` (spec 4.4),
 * so that a first start opens on something to look at.
 */

export const DEMO_WORKBOOK_NAME = 'Demo shop';

const VEGA_LITE = 'https://vega.github.io/schema/vega-lite/v5.json';

/**
 * Data API rows are keyed by member names, which contain dots; in a Vega-Lite field a dot means a
 * nested property, so each one is escaped.
 */
const field = (member: string) => member.replaceAll('.', '\\.');

interface DemoReport {
  /** The widget id on the dashboard. */
  id: string;
  name: string;
  description: string;
  query: Record<string, unknown>;
  spec: Record<string, unknown> | null;
  columnFormats?: Record<string, { type: 'currency' | 'percent' | 'number'; decimalPlaces?: number }>;
}

const reports: DemoReport[] = [
  {
    id: 'revenue',
    name: 'Total order amount',
    description: 'Sum of the amount charged on every order (not line-item revenue, a different figure)',
    query: { measures: ['orders.total_amount'] },
    spec: {
      $schema: VEGA_LITE,
      mark: { type: 'text', fontSize: 48, fontWeight: 'bold' },
      encoding: {
        text: { field: field('orders.total_amount'), type: 'quantitative', format: '$,.0f' },
        tooltip: [
          {
            field: field('orders.total_amount'),
            type: 'quantitative',
            title: 'Total order amount',
            format: '$,.2f',
          },
        ],
      },
    },
    columnFormats: { 'orders.total_amount': { type: 'currency', decimalPlaces: 0 } },
  },
  {
    id: 'revenue-by-month',
    name: 'Order amount by month',
    description: 'Total order amount per month',
    query: {
      measures: ['orders.total_amount'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
      order: { 'orders.created_at': 'asc' },
    },
    spec: {
      $schema: VEGA_LITE,
      mark: { type: 'line', point: true, interpolate: 'monotone' },
      encoding: {
        x: { field: field('orders.created_at.month'), type: 'temporal', title: null },
        y: {
          field: field('orders.total_amount'),
          type: 'quantitative',
          title: 'Total order amount',
          axis: { format: '$,.2s' },
        },
        tooltip: [
          { field: field('orders.created_at.month'), type: 'temporal', title: 'Period' },
          {
            field: field('orders.total_amount'),
            type: 'quantitative',
            title: 'Total order amount',
            format: '$,.2f',
          },
        ],
      },
    },
    columnFormats: { 'orders.total_amount': { type: 'currency', decimalPlaces: 2 } },
  },
  {
    id: 'revenue-by-category',
    name: 'Line-item revenue by category',
    description: "Quantity x price of the line items, per product category (not the orders' amounts)",
    query: {
      measures: ['line_items.revenue'],
      dimensions: ['products.category'],
      order: { 'line_items.revenue': 'desc' },
    },
    spec: {
      $schema: VEGA_LITE,
      mark: { type: 'arc', innerRadius: 45, padAngle: 0.01 },
      encoding: {
        theta: { field: field('line_items.revenue'), type: 'quantitative', stack: true },
        color: {
          field: field('products.category'),
          type: 'nominal',
          title: 'Category',
          sort: { field: field('line_items.revenue'), order: 'descending' },
        },
        tooltip: [
          { field: field('products.category'), type: 'nominal', title: 'Category' },
          {
            field: field('line_items.revenue'),
            type: 'quantitative',
            title: 'Line-item revenue',
            format: '$,.2f',
          },
        ],
      },
    },
    columnFormats: { 'line_items.revenue': { type: 'currency', decimalPlaces: 2 } },
  },
  {
    id: 'orders-by-status',
    name: 'Orders by status',
    description: 'Number of orders in each status',
    query: {
      measures: ['orders.count'],
      dimensions: ['orders.status'],
      // The status breaks ties: two statuses may count alike, and the bars must not swap between
      // one view (or rendered image) and the next.
      order: { 'orders.count': 'desc', 'orders.status': 'asc' },
    },
    spec: {
      $schema: VEGA_LITE,
      // Horizontal: the status names never collide, however narrow the tile.
      mark: { type: 'bar', cornerRadiusEnd: 3 },
      encoding: {
        y: {
          field: field('orders.status'),
          type: 'nominal',
          title: null,
          sort: '-x',
          scale: { paddingInner: 0.3 },
        },
        x: { field: field('orders.count'), type: 'quantitative', title: 'Orders' },
        tooltip: [
          { field: field('orders.status'), type: 'nominal', title: 'Status' },
          { field: field('orders.count'), type: 'quantitative', title: 'Orders', format: ',' },
        ],
      },
    },
  },
  {
    id: 'top-products',
    name: 'Top products',
    description: 'The ten products with the most line-item revenue (quantity x price)',
    query: {
      measures: ['line_items.revenue'],
      dimensions: ['products.name'],
      order: { 'line_items.revenue': 'desc' },
      limit: 10,
    },
    spec: {
      $schema: VEGA_LITE,
      mark: { type: 'bar', cornerRadiusEnd: 3 },
      encoding: {
        y: { field: field('products.name'), type: 'nominal', title: null, sort: '-x' },
        x: {
          field: field('line_items.revenue'),
          type: 'quantitative',
          title: 'Line-item revenue',
          axis: { format: '$,.2s' },
        },
        tooltip: [
          { field: field('products.name'), type: 'nominal', title: 'Product' },
          {
            field: field('line_items.revenue'),
            type: 'quantitative',
            title: 'Line-item revenue',
            format: '$,.2f',
          },
        ],
      },
    },
    columnFormats: { 'line_items.revenue': { type: 'currency', decimalPlaces: 2 } },
  },
  {
    id: 'recent-orders',
    name: 'Recent orders',
    description: 'The latest twenty orders',
    query: {
      dimensions: ['orders.id', 'orders.created_at', 'orders.status', 'customers.country', 'orders.amount'],
      order: { 'orders.created_at': 'desc' },
      limit: 20,
    },
    // No chart: the viewer draws a table.
    spec: null,
    columnFormats: { 'orders.amount': { type: 'currency', decimalPlaces: 2 } },
  },
];

type Position = { x: number; y: number; w: number; h: number };
type Breakpoint = 'lg' | 'md' | 'sm' | 'xs' | 'xxs';

/**
 * Where each widget sits at each breakpoint (rowHeight 32, margin 16: a widget h rows high is
 * 48h - 16 pixels). Wide screens put the figure and the donut beside the monthly line; narrow
 * ones stack everything full width.
 */
const layouts: Record<Breakpoint, Record<string, Position>> = {
  lg: {
    revenue: { x: 0, y: 0, w: 3, h: 3 },
    'revenue-by-category': { x: 0, y: 3, w: 3, h: 7 },
    'revenue-by-month': { x: 3, y: 0, w: 9, h: 10 },
    'orders-by-status': { x: 0, y: 10, w: 5, h: 7 },
    'top-products': { x: 5, y: 10, w: 7, h: 7 },
    'recent-orders': { x: 0, y: 17, w: 12, h: 9 },
  },
  md: {
    revenue: { x: 0, y: 0, w: 4, h: 3 },
    'revenue-by-category': { x: 0, y: 3, w: 4, h: 7 },
    'revenue-by-month': { x: 4, y: 0, w: 6, h: 10 },
    'orders-by-status': { x: 0, y: 10, w: 4, h: 7 },
    'top-products': { x: 4, y: 10, w: 6, h: 7 },
    'recent-orders': { x: 0, y: 17, w: 10, h: 9 },
  },
  sm: {
    revenue: { x: 0, y: 0, w: 6, h: 3 },
    'revenue-by-month': { x: 0, y: 3, w: 6, h: 7 },
    'revenue-by-category': { x: 0, y: 10, w: 3, h: 7 },
    'orders-by-status': { x: 3, y: 10, w: 3, h: 7 },
    'top-products': { x: 0, y: 17, w: 6, h: 7 },
    'recent-orders': { x: 0, y: 24, w: 6, h: 9 },
  },
  xs: stacked(4),
  xxs: stacked(2),
};

/** One column of full-width widgets, in reading order. */
function stacked(cols: number): Record<string, Position> {
  const heights: Record<string, number> = {
    revenue: 3,
    'revenue-by-month': 7,
    'revenue-by-category': 8,
    'orders-by-status': 7,
    'top-products': 8,
    'recent-orders': 9,
  };
  let y = 0;
  return Object.fromEntries(
    Object.entries(heights).map(([id, h]) => {
      const at = { x: 0, y, w: cols, h };
      y += h;
      return [id, at];
    }),
  );
}

const theme = {
  themeId: 'tessera-light',
  backgroundColor: '#f5f7fa',
  fontFamily: 'Inter, system-ui, sans-serif',
  primaryColor: '#3b6fd8',
  dashboard: { backgroundColor: '#f5f7fa', padding: '24px' },
  controls: {
    backgroundColor: '#ffffff',
    padding: '12px 16px',
    border: { color: '#e4e7eb', radius: '10px', style: 'solid', width: '1px' },
    title: {
      color: '#52606d',
      fontFamily: 'Inter, system-ui, sans-serif',
      fontSize: '12px',
      fontWeight: '600',
    },
  },
  widgets: {
    backgroundColor: '#ffffff',
    margin: '0px',
    padding: '14px 16px',
    border: { color: '#e4e7eb', radius: '10px', style: 'solid', width: '1px' },
    text: {
      color: '#1f2933',
      secondaryColor: '#7b8794',
      fontFamily: 'Inter, system-ui, sans-serif',
      codeFontFamily: 'ui-monospace, monospace',
    },
    title: {
      color: '#1f2933',
      fontFamily: 'Inter, system-ui, sans-serif',
      fontSize: '14px',
      fontWeight: '600',
    },
  },
};

export interface DemoDashboardTarget {
  tenantId: number;
  /** The account user who owns the workbook and publishes it (the first admin). */
  userId: number;
  /** The demo deployment, on the sample data. */
  deploymentId: number;
}

/**
 * Creates the "Demo shop" workbook with its six reports on the demo deployment and publishes its
 * dashboard (embedding allowed, so that the embed page has something to show). Returns the
 * published dashboard (spec 2.3). Call it once, when the demo deployment has just been created.
 */
export async function seedDemoDashboard(
  services: Pick<Application, 'workbooks' | 'reports' | 'dashboards'>,
  target: DemoDashboardTarget,
) {
  // The first admin acting in the account, as their API key would.
  const admin: Principal = {
    tenantId: target.tenantId,
    userId: target.userId,
    role: 'admin',
    credentialId: 0,
    credentialKind: 'api',
    deploymentIds: null,
  };
  const { deploymentId } = target;
  const workbook = await services.workbooks.create(admin, deploymentId, { name: DEMO_WORKBOOK_NAME });
  const widgets = [];
  for (const r of reports) {
    const report = await services.reports.create(admin, deploymentId, {
      name: r.name,
      title: r.name,
      description: r.description,
      jsonQuery: JSON.stringify(r.query),
      spec: r.spec,
      preferences: r.columnFormats ? { columnFormats: r.columnFormats } : null,
      workbookId: workbook.id,
    });
    widgets.push({
      id: r.id,
      position: layouts.lg[r.id],
      config: { reportId: report.id },
      responsiveLayouts: Object.fromEntries(
        (Object.keys(layouts) as Breakpoint[]).map((b) => [b, layouts[b][r.id]]),
      ),
    });
  }
  return services.dashboards.publish(admin, deploymentId, workbook.id, {
    workbookId: workbook.id,
    title: DEMO_WORKBOOK_NAME,
    description: 'Orders, revenue and products of the sample shop',
    allowEmbed: true,
    config: {
      title: DEMO_WORKBOOK_NAME,
      description: 'Orders, revenue and products of the sample shop',
      layout: {
        breakpoints: { lg: 1200, md: 996, sm: 768, xs: 480, xxs: 0 },
        cols: { lg: 12, md: 10, sm: 6, xs: 4, xxs: 2 },
        margin: [16, 16],
        containerPadding: [0, 0],
        rowHeight: 32,
      },
      settings: {},
      theme,
      widgets,
    },
  });
}
