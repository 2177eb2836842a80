SELECT
  time_bucket(INTERVAL '3 months', ("orders".created_at), CAST($1 AS TIMESTAMP)) AS "orders__created_at_fiscal_quarter",
  count("orders".id) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC
LIMIT 10000
-- params: ["1970-02-01T00:00:00.000"]
