SELECT * FROM (
  SELECT
    "orders".status AS "orders__status",
    count(DISTINCT "orders".customer_id) AS "orders__unique_customers",
    COUNT(DISTINCT "orders".customer_id) AS "orders__approx_customers"
  FROM orders AS "orders"
  GROUP BY 1
) AS "ordered"
ORDER BY "orders__status" IS NULL, "orders__status" ASC
LIMIT 10000
-- params: []
