SELECT * FROM (
  SELECT
    "ms_q"."g_0" AS "order_stages__created_at_month",
    "ms_q"."m_0" AS "order_stages__revenue_month_before"
  FROM (
    SELECT
      "ms_in"."g_0" AS "g_0",
      sum(("ms_in"."m_1")) AS "m_0"
    FROM (
      SELECT
        CAST(DATE_FORMAT((("order_stages".created_at) + INTERVAL 1 MONTH), '%Y-%m-01') AS DATETIME) AS "g_0",
        sum("order_stages".amount) AS "m_1"
      FROM orders AS "order_stages"
      WHERE (("order_stages".created_at) + INTERVAL 1 MONTH) >= CAST($1 AS DATETIME(3)) AND (("order_stages".created_at) + INTERVAL 1 MONTH) <= CAST($2 AS DATETIME(3))
      GROUP BY 1
    ) AS "ms_in"
    GROUP BY 1
  ) AS "ms_q"
) AS "ordered"
ORDER BY "order_stages__created_at_month" IS NULL, "order_stages__created_at_month" ASC
LIMIT 10000
-- params: ["2024-01-01 00:00:00.000","2024-03-31 23:59:59.999"]
