SELECT * FROM (
  SELECT
    "customers".name AS "orders__customer_name",
    count(*) AS "orders__count"
  FROM orders AS "orders"
  LEFT JOIN customers AS "customers" ON "orders".customer_id = "customers".id
  GROUP BY 1
) AS "ordered"
ORDER BY "orders__customer_name" IS NULL, "orders__customer_name" ASC
LIMIT 2
-- params: []
-- total:
SELECT
  count(*) AS "total_count"
FROM (
  SELECT
    "customers".name AS "orders__customer_name",
    count(*) AS "orders__count"
  FROM orders AS "orders"
  LEFT JOIN customers AS "customers" ON "orders".customer_id = "customers".id
  GROUP BY 1
) AS "original_query"
-- total params: []
