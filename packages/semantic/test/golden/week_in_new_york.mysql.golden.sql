SELECT * FROM (
  SELECT
    CAST(DATE(CONVERT_TZ("orders".created_at, '+00:00', $1)) - INTERVAL WEEKDAY(CONVERT_TZ("orders".created_at, '+00:00', $1)) DAY AS DATETIME) AS "orders__created_at_week",
    count(*) AS "orders__count",
    sum("orders".amount) AS "orders__total_amount"
  FROM orders AS "orders"
  WHERE "orders".created_at >= CAST($2 AS DATETIME(3)) AND "orders".created_at <= CAST($3 AS DATETIME(3))
  GROUP BY 1
) AS "ordered"
ORDER BY "orders__created_at_week" IS NULL, "orders__created_at_week" ASC
LIMIT 10000
-- params: ["America/New_York","2024-01-01 05:00:00.000","2024-03-01 04:59:59.999"]
