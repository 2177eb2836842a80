SELECT
  date_trunc('week', ("orders".created_at)::timestamptz AT TIME ZONE $1::text) AS "orders__created_at_week",
  count(*) AS "orders__count",
  sum("orders".amount) AS "orders__total_amount"
FROM orders AS "orders"
WHERE "orders".created_at >= $2::timestamp AND "orders".created_at <= $3::timestamp
GROUP BY 1
ORDER BY 1 ASC
LIMIT 10000
-- params: ["America/New_York","2024-01-01T05:00:00.000","2024-03-01T04:59:59.999"]
