SELECT
  count(*) AS "orders__count",
  sum("orders".amount) AS "orders__total_amount"
FROM orders AS "orders"
WHERE "orders".created_at >= $1::timestamp AND "orders".created_at <= $2::timestamp
LIMIT 10000
-- params: ["2024-02-01T00:00:00.000","2024-02-29T23:59:59.999"]
