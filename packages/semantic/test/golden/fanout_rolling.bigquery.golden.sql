SELECT
  `q_0`.`orders__created_at_day` AS `orders__created_at_day`,
  `q_2`.`orders__rolling_amount_3d` AS `orders__rolling_amount_3d`,
  `q_0`.`orders__count` AS `orders__count`,
  COALESCE(`q_1`.`line_items__count`, 0) AS `line_items__count`
FROM (
  SELECT
    DATETIME_TRUNC(DATETIME(`orders`.created_at), DAY) AS `orders__created_at_day`,
    count(*) AS `orders__count`
  FROM orders AS `orders`
  WHERE `orders`.created_at >= CAST(@p1 AS TIMESTAMP) AND `orders`.created_at <= CAST(@p2 AS TIMESTAMP)
  GROUP BY 1
) AS `q_0`
LEFT JOIN (
  SELECT
    DATETIME_TRUNC(DATETIME(`orders`.created_at), DAY) AS `orders__created_at_day`,
    count(`line_items`.id) AS `line_items__count`
  FROM orders AS `orders`
  INNER JOIN line_items AS `line_items` ON `orders`.id = `line_items`.order_id
  WHERE `orders`.created_at >= CAST(@p1 AS TIMESTAMP) AND `orders`.created_at <= CAST(@p2 AS TIMESTAMP)
  GROUP BY 1
) AS `q_1` ON `q_0`.`orders__created_at_day` IS NOT DISTINCT FROM `q_1`.`orders__created_at_day`
INNER JOIN (
  SELECT
    `series`.`date_from` AS `orders__created_at_day`,
    sum(`base`.`__m`) AS `orders__rolling_amount_3d`
  FROM (SELECT CAST(@p1 AS DATETIME) AS `date_from`, CAST(@p3 AS DATETIME) AS `date_to` UNION ALL SELECT CAST(@p4 AS DATETIME), CAST(@p5 AS DATETIME) UNION ALL SELECT CAST(@p6 AS DATETIME), CAST(@p7 AS DATETIME) UNION ALL SELECT CAST(@p8 AS DATETIME), CAST(@p9 AS DATETIME) UNION ALL SELECT CAST(@p10 AS DATETIME), CAST(@p2 AS DATETIME)) AS `series`
  LEFT JOIN (
    SELECT
      DATETIME_TRUNC(`rows`.`__t`, DAY) AS `__t`,
      sum(`rows`.`__m`) AS `__m`
    FROM (
      SELECT DISTINCT
        DATETIME(`orders`.created_at) AS `__t`,
        `orders`.id AS `__pk_0`,
        `orders`.amount AS `__m`
      FROM orders AS `orders`
      LEFT JOIN line_items AS `line_items` ON `orders`.id = `line_items`.order_id
      WHERE `orders`.created_at >= CAST(@p11 AS TIMESTAMP) AND `orders`.created_at <= CAST(@p12 AS TIMESTAMP) AND (DATETIME(`orders`.created_at) > (CAST(@p1 AS DATETIME) - INTERVAL 3 DAY) AND DATETIME(`orders`.created_at) <= CAST(@p2 AS DATETIME))
    ) AS `rows`
    GROUP BY DATETIME_TRUNC(`rows`.`__t`, DAY)
  ) AS `base` ON (`series`.`date_to` IS NULL) = (`base`.`__t` IS NULL) AND `base`.`__t` > (`series`.`date_to` - INTERVAL 3 DAY) AND `base`.`__t` <= `series`.`date_to`
  GROUP BY 1
) AS `q_2` ON `q_0`.`orders__created_at_day` IS NOT DISTINCT FROM `q_2`.`orders__created_at_day`
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["2024-03-04 00:00:00.000","2024-03-08 23:59:59.999","2024-03-04 23:59:59.999","2024-03-05 00:00:00.000","2024-03-05 23:59:59.999","2024-03-06 00:00:00.000","2024-03-06 23:59:59.999","2024-03-07 00:00:00.000","2024-03-07 23:59:59.999","2024-03-08 00:00:00.000","2024-02-29 00:00:00.000","2024-03-09 23:59:59.999"]
