SELECT
  "q_0"."orders__created_at_day" AS "orders__created_at_day",
  "q_2"."orders__rolling_amount_3d" AS "orders__rolling_amount_3d",
  "q_0"."orders__count" AS "orders__count",
  COALESCE("q_1"."line_items__count", 0) AS "line_items__count"
FROM (
  SELECT
    toDateTime64(toStartOfDay(toDateTime64("orders".created_at, 3, 'UTC')), 3, 'UTC') AS "orders__created_at_day",
    count(*) AS "orders__count"
  FROM orders AS "orders"
  WHERE "orders".created_at >= toDateTime64($1, 3, 'UTC') AND "orders".created_at <= toDateTime64($2, 3, 'UTC')
  GROUP BY 1
) AS "q_0"
LEFT JOIN (
  SELECT
    toDateTime64(toStartOfDay(toDateTime64("orders".created_at, 3, 'UTC')), 3, 'UTC') AS "orders__created_at_day",
    count("line_items".id) AS "line_items__count"
  FROM orders AS "orders"
  INNER JOIN line_items AS "line_items" ON "orders".id = "line_items".order_id
  WHERE "orders".created_at >= toDateTime64($1, 3, 'UTC') AND "orders".created_at <= toDateTime64($2, 3, 'UTC')
  GROUP BY 1
) AS "q_1" ON "q_0"."orders__created_at_day" IS NOT DISTINCT FROM "q_1"."orders__created_at_day"
INNER JOIN (
  SELECT
    "series"."date_from" AS "orders__created_at_day",
    sum("base"."__m") AS "orders__rolling_amount_3d"
  FROM (SELECT toDateTime64($1, 3, 'UTC') AS "date_from", toDateTime64($3, 3, 'UTC') AS "date_to" UNION ALL SELECT toDateTime64($4, 3, 'UTC'), toDateTime64($5, 3, 'UTC') UNION ALL SELECT toDateTime64($6, 3, 'UTC'), toDateTime64($7, 3, 'UTC') UNION ALL SELECT toDateTime64($8, 3, 'UTC'), toDateTime64($9, 3, 'UTC') UNION ALL SELECT toDateTime64($10, 3, 'UTC'), toDateTime64($2, 3, 'UTC')) AS "series"
  LEFT JOIN (
    SELECT
      toDateTime64(toStartOfDay("rows"."__t"), 3, 'UTC') AS "__t",
      sum("rows"."__m") AS "__m"
    FROM (
      SELECT DISTINCT
        toDateTime64("orders".created_at, 3, 'UTC') AS "__t",
        "orders".id AS "__pk_0",
        "orders".amount AS "__m"
      FROM orders AS "orders"
      LEFT JOIN line_items AS "line_items" ON "orders".id = "line_items".order_id
      WHERE "orders".created_at >= toDateTime64($11, 3, 'UTC') AND "orders".created_at <= toDateTime64($12, 3, 'UTC') AND (toDateTime64("orders".created_at, 3, 'UTC') > (toDateTime64($1, 3, 'UTC') - INTERVAL 3 DAY) AND toDateTime64("orders".created_at, 3, 'UTC') <= toDateTime64($2, 3, 'UTC'))
    ) AS "rows"
    GROUP BY toDateTime64(toStartOfDay("rows"."__t"), 3, 'UTC')
  ) AS "base" ON 0 * cityHash64("series"."date_to") = 0 * cityHash64("base"."__t") AND "base"."__t" > ("series"."date_to" - INTERVAL 3 DAY) AND "base"."__t" <= "series"."date_to"
  GROUP BY 1
) AS "q_2" ON "q_0"."orders__created_at_day" IS NOT DISTINCT FROM "q_2"."orders__created_at_day"
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["2024-03-04 00:00:00.000","2024-03-08 23:59:59.999","2024-03-04 23:59:59.999","2024-03-05 00:00:00.000","2024-03-05 23:59:59.999","2024-03-06 00:00:00.000","2024-03-06 23:59:59.999","2024-03-07 00:00:00.000","2024-03-07 23:59:59.999","2024-03-08 00:00:00.000","2024-02-29 00:00:00.000","2024-03-09 23:59:59.999"]
