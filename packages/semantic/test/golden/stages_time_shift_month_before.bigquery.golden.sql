SELECT
  `ms_q`.`g_0` AS `order_stages__created_at_month`,
  `ms_q`.`m_0` AS `order_stages__revenue_month_before`
FROM (
  SELECT
    `ms_in`.`g_0` AS `g_0`,
    sum((`ms_in`.`m_1`)) AS `m_0`
  FROM (
    SELECT
      DATETIME_TRUNC(DATETIME(CAST(DATETIME(`order_stages`.created_at) + INTERVAL 1 MONTH AS TIMESTAMP)), MONTH) AS `g_0`,
      sum(`order_stages`.amount) AS `m_1`
    FROM orders AS `order_stages`
    WHERE (CAST(DATETIME(`order_stages`.created_at) + INTERVAL 1 MONTH AS TIMESTAMP)) >= CAST(@p1 AS TIMESTAMP) AND (CAST(DATETIME(`order_stages`.created_at) + INTERVAL 1 MONTH AS TIMESTAMP)) <= CAST(@p2 AS TIMESTAMP)
    GROUP BY 1
  ) AS `ms_in`
  GROUP BY 1
) AS `ms_q`
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["2024-01-01 00:00:00.000","2024-03-31 23:59:59.999"]
