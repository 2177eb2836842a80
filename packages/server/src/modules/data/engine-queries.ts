/**
 * Data-API queries that exercise the planner's shapes (fan-out, a view, a time zone, a rolling
 * window, segments and filters, ungrouped rows), asked of each engine the tests compare:
 * engines.test.ts (DuckDB and PostgreSQL) and mariadb.test.ts (DuckDB and MariaDB).
 */
export const engineQueries: Record<string, Record<string, unknown>> = {
  by_status: {
    measures: ['orders.count', 'orders.total_amount', 'orders.avg_amount', 'orders.unique_customers'],
    dimensions: ['orders.status'],
    order: { 'orders.status': 'asc' },
  },
  fanout: {
    measures: ['orders.count', 'orders.total_amount', 'line_items.count', 'line_items.revenue'],
    dimensions: ['customers.country'],
    order: { 'customers.country': 'asc' },
  },
  fanout_by_category: {
    measures: ['orders.count', 'line_items.quantity_total'],
    dimensions: ['products.category'],
    order: { 'products.category': 'asc' },
  },
  monthly_in_new_york: {
    measures: ['orders.count', 'orders.completed_ratio'],
    timeDimensions: [
      { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-12-31'] },
    ],
    timezone: 'America/New_York',
  },
  rolling_week: {
    measures: ['orders.rolling_amount_7d'],
    timeDimensions: [
      { dimension: 'orders.created_at', granularity: 'day', dateRange: ['2024-03-01', '2024-03-10'] },
    ],
  },
  segment_and_filters: {
    measures: ['orders.count'],
    dimensions: ['orders.is_big'],
    segments: ['orders.completed'],
    filters: [{ member: 'orders.amount', operator: 'gt', values: ['100'] }],
    order: { 'orders.is_big': 'asc' },
  },
  view: {
    measures: ['sales.count', 'sales.line_item_count', 'sales.revenue'],
    dimensions: ['sales.customers_country'],
    order: { 'sales.customers_country': 'asc' },
  },
  ungrouped: {
    dimensions: ['orders.id', 'orders.status', 'orders.amount', 'orders.created_at'],
    ungrouped: true,
    order: { 'orders.id': 'asc' },
    limit: 20,
  },
};
