SELECT
  `ms_q`.`g_0` AS `order_stages__status`,
  `ms_q`.`m_0` AS `order_stages__revenue`,
  `ms_q`.`m_1` AS `order_stages__revenue_share`
FROM (
  SELECT
    COALESCE(`ms_l`.`g_0`, `ms_r`.`g_0`) AS `g_0`,
    `ms_l`.`m_0` AS `m_0`,
    `ms_r`.`m_1` AS `m_1`
  FROM (
    SELECT
      `order_stages`.status AS `g_0`,
      sum(`order_stages`.amount) AS `m_0`
    FROM orders AS `order_stages`
    GROUP BY 1
  ) AS `ms_l`
  FULL JOIN (
    SELECT
      `ms_in`.`g_0` AS `g_0`,
      (100.0 * `ms_in`.`m_0` / NULLIF(`ms_in`.`m_2`, 0)) AS `m_1`
    FROM (
      SELECT
        COALESCE(`ms_l`.`g_0`, `ms_r`.`g_0`) AS `g_0`,
        `ms_l`.`m_0` AS `m_0`,
        `ms_r`.`m_2` AS `m_2`
      FROM (
        SELECT
          `order_stages`.status AS `g_0`,
          sum(`order_stages`.amount) AS `m_0`
        FROM orders AS `order_stages`
        GROUP BY 1
      ) AS `ms_l`
      FULL JOIN (
        SELECT
          `ms_rows`.`g_0` AS `g_0`,
          `ms_group`.`m_2` AS `m_2`
        FROM (
          SELECT DISTINCT
            `ms_in`.`g_0` AS `g_0`
          FROM (
            SELECT
              `order_stages`.status AS `g_0`,
              sum(`order_stages`.amount) AS `m_0`
            FROM orders AS `order_stages`
            GROUP BY 1
          ) AS `ms_in`
        ) AS `ms_rows`
        LEFT JOIN (
          SELECT
            sum((`ms_in`.`m_0`)) AS `m_2`
          FROM (
            SELECT
              `order_stages`.status AS `g_0`,
              sum(`order_stages`.amount) AS `m_0`
            FROM orders AS `order_stages`
            GROUP BY 1
          ) AS `ms_in`
        ) AS `ms_group` ON 1 = 1
      ) AS `ms_r` ON ((`ms_l`.`g_0` IS NULL)) = ((`ms_r`.`g_0` IS NULL)) AND (COALESCE(CAST(`ms_l`.`g_0` AS STRING), '')) = (COALESCE(CAST(`ms_r`.`g_0` AS STRING), ''))
    ) AS `ms_in`
  ) AS `ms_r` ON ((`ms_l`.`g_0` IS NULL)) = ((`ms_r`.`g_0` IS NULL)) AND (COALESCE(CAST(`ms_l`.`g_0` AS STRING), '')) = (COALESCE(CAST(`ms_r`.`g_0` AS STRING), ''))
) AS `ms_q`
ORDER BY 2 DESC NULLS FIRST
LIMIT 10000
-- params: []
