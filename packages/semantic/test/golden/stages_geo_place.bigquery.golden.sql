SELECT
  CAST((`order_stages`.amount) AS STRING) || ',' || CAST((`order_stages`.customer_id) AS STRING) AS `order_stages__place`,
  sum(`order_stages`.amount) AS `order_stages__revenue`
FROM orders AS `order_stages`
GROUP BY 1
ORDER BY 2 DESC NULLS FIRST
LIMIT 10000
-- params: []
