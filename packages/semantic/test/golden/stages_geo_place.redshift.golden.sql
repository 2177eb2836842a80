SELECT
  CAST(("order_stages".amount) AS VARCHAR(65535)) || ',' || CAST(("order_stages".customer_id) AS VARCHAR(65535)) AS "order_stages__place",
  sum("order_stages".amount) AS "order_stages__revenue"
FROM orders AS "order_stages"
GROUP BY 1
ORDER BY 2 DESC
LIMIT 10000
-- params: []
