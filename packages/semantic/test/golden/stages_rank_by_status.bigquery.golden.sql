SELECT
  `ms_q`.`g_0` AS `order_stages__status`,
  `ms_q`.`m_0` AS `order_stages__revenue_rank`
FROM (
  SELECT
    `ms_in`.`g_0` AS `g_0`,
    rank() OVER (ORDER BY (`ms_in`.`m_1`) DESC NULLS FIRST) AS `m_0`
  FROM (
    SELECT
      `order_stages`.status AS `g_0`,
      sum(`order_stages`.amount) AS `m_1`
    FROM orders AS `order_stages`
    GROUP BY 1
  ) AS `ms_in`
) AS `ms_q`
ORDER BY 2 DESC NULLS FIRST
LIMIT 10000
-- params: []
