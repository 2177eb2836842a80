SELECT * FROM (
  SELECT
    CAST(("order_stages".amount) AS CHAR) || ',' || CAST(("order_stages".customer_id) AS CHAR) AS "order_stages__place",
    sum("order_stages".amount) AS "order_stages__revenue"
  FROM orders AS "order_stages"
  GROUP BY 1
) AS "ordered"
ORDER BY "order_stages__revenue" IS NULL DESC, "order_stages__revenue" DESC
LIMIT 10000
-- params: []
