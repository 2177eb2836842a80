SELECT * FROM (
  SELECT
    CASE WHEN "orders".amount >= 100 THEN $1 ELSE $2 END AS "orders__size",
    "orders".amount >= 100 AS "orders__is_big",
    count(*) AS "orders__count"
  FROM orders AS "orders"
  GROUP BY 1, 2
) AS "ordered"
ORDER BY "orders__size" IS NULL, "orders__size" ASC, "orders__is_big" IS NULL, "orders__is_big" ASC
LIMIT 10000
-- params: ["big","small"]
