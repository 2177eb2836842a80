SELECT
  ($2::timestamp + INTERVAL '3 months' * floor(EXTRACT(EPOCH FROM (("orders".created_at)::timestamptz AT TIME ZONE $1::text - $2::timestamp)) / 7776000)) AS "orders__created_at_fiscal_quarter",
  count(*) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC
LIMIT 10000
-- params: ["UTC","2024-02-01T00:00:00.000"]
