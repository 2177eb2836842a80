SELECT * FROM (
  SELECT
    "orders".status AS "orders__status",
    count(*) AS "orders__count"
  FROM orders AS "orders"
  WHERE "orders".status IN ($1, $2) AND "orders".amount >= $3 AND "orders".created_at < CAST($4 AS DATETIME(3))
  GROUP BY 1
) AS "ordered"
ORDER BY "orders__status" IS NULL, "orders__status" ASC
LIMIT 10000
-- params: ["completed","pending",50,"2024-03-01 00:00:00.000"]
