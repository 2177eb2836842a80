SELECT
  "q_0"."orders__created_at_week" AS "orders__created_at_week",
  "q_0"."orders__amount_mtd" AS "orders__amount_mtd"
FROM (
  SELECT
    "series"."date_from" AS "orders__created_at_week",
    sum("base"."__m") AS "orders__amount_mtd"
  FROM (SELECT toDateTime64($1, 3, 'UTC') AS "date_from", toDateTime64($2, 3, 'UTC') AS "date_to" UNION ALL SELECT toDateTime64($3, 3, 'UTC'), toDateTime64($4, 3, 'UTC') UNION ALL SELECT toDateTime64($5, 3, 'UTC'), toDateTime64($6, 3, 'UTC') UNION ALL SELECT toDateTime64($7, 3, 'UTC'), toDateTime64($8, 3, 'UTC')) AS "series"
  LEFT JOIN (
    SELECT
      toDateTime64(toStartOfDay("rows"."__t"), 3, 'UTC') AS "__t",
      sum("rows"."__m") AS "__m"
    FROM (
      SELECT
        toDateTime64("orders".created_at, 3, 'UTC') AS "__t",
        "orders".amount AS "__m"
      FROM orders AS "orders"
      WHERE "orders".created_at >= toDateTime64($9, 3, 'UTC') AND "orders".created_at <= toDateTime64($10, 3, 'UTC') AND (toDateTime64("orders".created_at, 3, 'UTC') >= toDateTime64(toStartOfMonth(toDateTime64($1, 3, 'UTC')), 3, 'UTC') AND toDateTime64("orders".created_at, 3, 'UTC') <= toDateTime64($8, 3, 'UTC'))
    ) AS "rows"
    GROUP BY toDateTime64(toStartOfDay("rows"."__t"), 3, 'UTC')
  ) AS "base" ON 0 * cityHash64("series"."date_from") = 0 * cityHash64("base"."__t") AND "base"."__t" >= toDateTime64(toStartOfMonth("series"."date_from"), 3, 'UTC') AND "base"."__t" <= "series"."date_to"
  GROUP BY 1
) AS "q_0"
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["2024-01-29 00:00:00.000","2024-02-04 23:59:59.999","2024-02-05 00:00:00.000","2024-02-11 23:59:59.999","2024-02-12 00:00:00.000","2024-02-18 23:59:59.999","2024-02-19 00:00:00.000","2024-02-25 23:59:59.999","2023-12-31 00:00:00.000","2024-02-26 23:59:59.999"]
