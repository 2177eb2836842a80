SELECT * FROM (
  SELECT
    (CAST($1 AS DATETIME(3)) + INTERVAL (FLOOR(TIMESTAMPDIFF(SECOND, CAST($1 AS DATETIME(3)), ("orders".created_at)) / 7776000) * 3) MONTH) AS "orders__created_at_fiscal_quarter",
    count(*) AS "orders__count"
  FROM orders AS "orders"
  GROUP BY 1
) AS "ordered"
ORDER BY "orders__created_at_fiscal_quarter" IS NULL, "orders__created_at_fiscal_quarter" ASC
LIMIT 10000
-- params: ["2024-02-01 00:00:00.000"]
