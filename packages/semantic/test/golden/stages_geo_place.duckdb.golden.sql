SELECT
  CAST(("order_stages".amount) AS TEXT) || ',' || CAST(("order_stages".customer_id) AS TEXT) AS "order_stages__place",
  sum("order_stages".amount) AS "order_stages__revenue"
FROM orders AS "order_stages"
GROUP BY 1
ORDER BY 2 DESC
LIMIT 10000
-- params: []
