SELECT
  "q_0"."sales_overview__customers_country" AS "sales_overview__customers_country",
  "q_0"."orders__count" AS "sales_overview__count",
  "q_1"."orders__total_amount" AS "sales_overview__total_amount",
  "q_0"."line_items__count" AS "sales_overview__line_item_count"
FROM (
  SELECT
    "customers".country AS "sales_overview__customers_country",
    count(DISTINCT "orders".id) AS "orders__count",
    count("line_items".id) AS "line_items__count"
  FROM orders AS "orders"
  LEFT JOIN line_items AS "line_items" ON "orders".id = "line_items".order_id
  LEFT JOIN customers AS "customers" ON "orders".customer_id = "customers".id
  WHERE "orders".status <> $1 OR "orders".status IS NULL
  GROUP BY 1
) AS "q_0"
LEFT JOIN (
  SELECT
    "orders__keys"."sales_overview__customers_country" AS "sales_overview__customers_country",
    sum("orders".amount) AS "orders__total_amount"
  FROM (
    SELECT DISTINCT
      "customers".country AS "sales_overview__customers_country",
      "orders".id AS "orders__pk_0"
    FROM orders AS "orders"
    LEFT JOIN line_items AS "line_items" ON "orders".id = "line_items".order_id
    LEFT JOIN customers AS "customers" ON "orders".customer_id = "customers".id
    WHERE "orders".status <> $1 OR "orders".status IS NULL
  ) AS "orders__keys"
  LEFT JOIN orders AS "orders" ON "orders__keys"."orders__pk_0" = "orders".id
  GROUP BY 1
) AS "q_1" ON "q_0"."sales_overview__customers_country" IS NOT DISTINCT FROM "q_1"."sales_overview__customers_country"
ORDER BY 1 ASC
LIMIT 10000
-- params: ["cancelled"]
