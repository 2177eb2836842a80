SELECT * FROM (
  SELECT
    (CAST($1 AS DATETIME(3)) + INTERVAL (FLOOR(TIMESTAMPDIFF(SECOND, CAST($1 AS DATETIME(3)), ("orders".created_at)) / 1209600) * 14) DAY) AS "orders__created_at_fortnight",
    count(*) AS "orders__count"
  FROM orders AS "orders"
  GROUP BY 1
) AS "ordered"
ORDER BY "orders__created_at_fortnight" IS NULL, "orders__created_at_fortnight" ASC
LIMIT 10000
-- params: ["2024-01-01 00:00:00.000"]
