SELECT
  toString(("order_stages".amount)) || ',' || toString(("order_stages".customer_id)) AS "order_stages__place",
  sum("order_stages".amount) AS "order_stages__revenue"
FROM orders AS "order_stages"
GROUP BY 1
ORDER BY 2 DESC NULLS FIRST
LIMIT 10000
-- params: []
