SELECT * FROM (
  SELECT
    CAST(DATE_FORMAT(CONVERT_TZ("orders".created_at, '+00:00', $1), '%Y-%m-01') AS DATETIME) AS "orders__created_at_month",
    count(*) AS "orders__count"
  FROM orders AS "orders"
  GROUP BY 1
) AS "ordered"
ORDER BY "orders__created_at_month" IS NULL, "orders__created_at_month" ASC
LIMIT 10000
-- params: ["America/New_York"]
