SELECT * FROM (
  SELECT
    CAST(DATE(("orders".created_at)) AS DATETIME) AS "orders__created_at_day",
    sum("orders".amount) AS "orders__total_amount"
  FROM orders AS "orders"
  WHERE "orders".created_at >= CAST($1 AS DATETIME(3)) AND "orders".created_at <= CAST($2 AS DATETIME(3))
  GROUP BY 1
) AS "ordered"
ORDER BY "orders__created_at_day" IS NULL, "orders__created_at_day" ASC
LIMIT 10000
-- params: ["2024-01-01 00:00:00.000","2024-01-31 23:59:59.999"]
