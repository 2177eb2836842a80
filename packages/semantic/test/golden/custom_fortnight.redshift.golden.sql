SELECT
  DATEADD(day, CAST(14 * FLOOR(CAST(DATEDIFF(second, CAST($1 AS TIMESTAMP), ("orders".created_at)) AS DOUBLE PRECISION) / 1209600) AS INTEGER), CAST($1 AS TIMESTAMP)) AS "orders__created_at_fortnight",
  count(*) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC
LIMIT 10000
-- params: ["2024-01-01 00:00:00.000"]
