SELECT * FROM (
  SELECT
    "customers".name AS "customers__name",
    sum("orders".amount) AS "orders__total_amount"
  FROM orders AS "orders"
  LEFT JOIN customers AS "customers" ON "orders".customer_id = "customers".id
  GROUP BY 1
  HAVING sum("orders".amount) > $1
) AS "ordered"
ORDER BY "orders__total_amount" IS NULL DESC, "orders__total_amount" DESC
LIMIT 10000
-- params: [200]
