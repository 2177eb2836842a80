SELECT
  "ms_q"."g_0" AS "order_stages__created_at_month",
  "ms_q"."m_0" AS "order_stages__revenue_month_before"
FROM (
  SELECT
    "ms_in"."g_0" AS "g_0",
    sum(("ms_in"."m_1")) AS "m_0"
  FROM (
    SELECT
      date_trunc('month', (("order_stages".created_at) + INTERVAL '1' MONTH)) AS "g_0",
      sum("order_stages".amount) AS "m_1"
    FROM orders AS "order_stages"
    WHERE (("order_stages".created_at) + INTERVAL '1' MONTH) >= CAST($1 AS TIMESTAMP) AND (("order_stages".created_at) + INTERVAL '1' MONTH) <= CAST($2 AS TIMESTAMP)
    GROUP BY 1
  ) AS "ms_in"
  GROUP BY 1
) AS "ms_q"
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["2024-01-01 00:00:00.000","2024-03-31 23:59:59.999"]
