import type { CubeQuery } from '../src/index.ts';

/** The query suite shared by the golden SQL test and the engine test. */
export const queries: Record<string, CubeQuery> = {
  count_by_status: { measures: ['orders.count', 'orders.total_amount'], dimensions: ['orders.status'] },
  fanout_line_items_by_status: {
    measures: ['orders.count', 'orders.total_amount', 'line_items.count'],
    dimensions: ['orders.status'],
    order: { 'orders.status': 'asc' },
  },
  fanout_orders_by_product: {
    measures: ['orders.count', 'orders.total_amount', 'orders.avg_amount'],
    dimensions: ['line_items.product_id'],
    order: [['line_items.product_id', 'asc']],
  },
  fanout_products_by_category: {
    measures: ['products.count', 'products.price_total', 'line_items.quantity_total'],
    dimensions: ['products.category'],
    order: { 'products.category': 'asc' },
  },
  // a filter on the many side: orders at their own grain would lose it, so distinct keys
  fanout_filtered_items: {
    measures: ['orders.count', 'orders.total_amount', 'line_items.count'],
    dimensions: ['orders.status'],
    filters: [{ member: 'line_items.quantity', operator: 'gte', values: ['2'] }],
    order: { 'orders.status': 'asc' },
  },
  // COALESCE is not NULL on an order without items: its LEFT JOIN stays
  fanout_not_null_free: {
    measures: ['orders.count', 'line_items.quantity_or_zero'],
    dimensions: ['orders.status'],
    order: { 'orders.status': 'asc' },
  },
  fanout_distinct_and_avg: {
    measures: ['orders.unique_customers', 'orders.total_amount', 'line_items.avg_price'],
    dimensions: ['orders.status'],
    order: { 'orders.status': 'asc' },
  },
  // customers repeat per order: counted over distinct keys within the orders join
  fanout_customers_and_items: {
    measures: ['customers.count', 'orders.total_amount', 'line_items.count'],
    dimensions: ['customers.country'],
    order: { 'customers.country': 'asc' },
  },
  fanout_rolling: {
    measures: ['orders.rolling_amount_3d', 'orders.count', 'line_items.count'],
    timeDimensions: [
      { dimension: 'orders.created_at', granularity: 'day', dateRange: ['2024-03-04', '2024-03-08'] },
    ],
  },
  fanout_no_dimensions: { measures: ['orders.count', 'orders.total_amount', 'line_items.count'] },
  month_in_new_york: {
    measures: ['orders.count'],
    timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
    timezone: 'America/New_York',
  },
  // weeks start on Monday on every engine (2024-01-01 was one; 2024-01-31 a Wednesday)
  week_in_new_york: {
    measures: ['orders.count', 'orders.total_amount'],
    timeDimensions: [
      { dimension: 'orders.created_at', granularity: 'week', dateRange: ['2024-01-01', '2024-02-29'] },
    ],
    timezone: 'America/New_York',
  },
  day_in_range: {
    measures: ['orders.total_amount'],
    dimensions: ['orders.created_at.day'],
    timeDimensions: [{ dimension: 'orders.created_at', dateRange: ['2024-01-01', '2024-01-31'] }],
  },
  relative_last_month: {
    measures: ['orders.count', 'orders.total_amount'],
    timeDimensions: [{ dimension: 'orders.created_at', dateRange: 'last month' }],
  },
  filters_and: {
    measures: ['orders.count'],
    dimensions: ['orders.status'],
    filters: [
      { member: 'orders.status', operator: 'in', values: ['completed', 'pending'] },
      { member: 'orders.amount', operator: 'gte', values: ['50'] },
      { member: 'orders.created_at', operator: 'beforeDate', values: ['2024-03-01'] },
    ],
    order: { 'orders.status': 'asc' },
  },
  filters_or: {
    measures: ['orders.count'],
    filters: [
      {
        or: [
          { member: 'orders.status', operator: 'equals', values: ['cancelled'] },
          {
            and: [
              { member: 'orders.amount', operator: 'gt', values: ['150'] },
              { member: 'orders.status', operator: 'notEquals', values: ['pending'] },
            ],
          },
        ],
      },
    ],
  },
  string_filters: {
    measures: ['customers.count'],
    dimensions: ['customers.name'],
    filters: [
      { member: 'customers.name', operator: 'contains', values: ['a', 'o'] },
      { member: 'customers.email', operator: 'notEndsWith', values: ['@example.org'] },
      { member: 'customers.country', operator: 'set' },
    ],
    order: { 'customers.name': 'asc' },
  },
  having_measure_filter: {
    measures: ['orders.total_amount'],
    dimensions: ['customers.name'],
    filters: [{ member: 'orders.total_amount', operator: 'gt', values: ['200'] }],
  },
  segment_by_country: {
    measures: ['orders.count', 'orders.total_amount'],
    dimensions: ['customers.country'],
    segments: ['orders.completed'],
    order: { 'customers.country': 'asc' },
  },
  calculated_ratio: {
    measures: ['orders.completed_ratio', 'orders.completed_count'],
    dimensions: ['customers.country'],
    order: { 'customers.country': 'asc' },
  },
  distinct_counts: {
    measures: ['orders.unique_customers', 'orders.approx_customers'],
    dimensions: ['orders.status'],
    order: { 'orders.status': 'asc' },
  },
  rolling_trailing_3_days: {
    measures: ['orders.rolling_amount_3d', 'orders.count'],
    timeDimensions: [
      { dimension: 'orders.created_at', granularity: 'day', dateRange: ['2024-03-04', '2024-03-08'] },
    ],
  },
  rolling_month_to_date: {
    measures: ['orders.amount_mtd'],
    timeDimensions: [
      { dimension: 'orders.created_at', granularity: 'week', dateRange: ['2024-01-29', '2024-02-25'] },
    ],
  },
  custom_fiscal_quarter: {
    measures: ['orders.count'],
    timeDimensions: [{ dimension: 'orders.created_at', granularity: 'fiscal_quarter' }],
  },
  custom_fortnight: {
    measures: ['orders.count'],
    timeDimensions: [{ dimension: 'orders.created_at', granularity: 'fortnight' }],
  },
  view_fanout: {
    measures: ['sales_overview.count', 'sales_overview.total_amount', 'sales_overview.line_item_count'],
    dimensions: ['sales_overview.customers_country'],
    order: { 'sales_overview.customers_country': 'asc' },
  },
  ungrouped_page: {
    measures: ['orders.total_amount'],
    dimensions: ['orders.id', 'orders.status'],
    ungrouped: true,
    order: { 'orders.id': 'asc' },
    limit: 3,
    offset: 1,
  },
  case_and_boolean: {
    measures: ['orders.count'],
    dimensions: ['orders.size', 'orders.is_big'],
    order: [
      ['orders.size', 'asc'],
      ['orders.is_big', 'asc'],
    ],
  },
  total_with_limit: {
    measures: ['orders.count'],
    dimensions: ['orders.customer_name'],
    total: true,
    limit: 2,
    order: { 'orders.customer_name': 'asc' },
  },
};
