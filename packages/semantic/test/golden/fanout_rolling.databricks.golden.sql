SELECT
  `q_0`.`orders__created_at_day` AS `orders__created_at_day`,
  `q_2`.`orders__rolling_amount_3d` AS `orders__rolling_amount_3d`,
  `q_0`.`orders__count` AS `orders__count`,
  COALESCE(`q_1`.`line_items__count`, 0) AS `line_items__count`
FROM (
  SELECT
    date_trunc('DAY', (`orders`.created_at)) AS `orders__created_at_day`,
    count(*) AS `orders__count`
  FROM orders AS `orders`
  WHERE `orders`.created_at >= CAST($1 AS TIMESTAMP) AND `orders`.created_at <= CAST($2 AS TIMESTAMP)
  GROUP BY 1
) AS `q_0`
LEFT JOIN (
  SELECT
    date_trunc('DAY', (`orders`.created_at)) AS `orders__created_at_day`,
    count(`line_items`.id) AS `line_items__count`
  FROM orders AS `orders`
  INNER JOIN line_items AS `line_items` ON `orders`.id = `line_items`.order_id
  WHERE `orders`.created_at >= CAST($1 AS TIMESTAMP) AND `orders`.created_at <= CAST($2 AS TIMESTAMP)
  GROUP BY 1
) AS `q_1` ON `q_0`.`orders__created_at_day` IS NOT DISTINCT FROM `q_1`.`orders__created_at_day`
INNER JOIN (
  SELECT
    `series`.`date_from` AS `orders__created_at_day`,
    sum(`base`.`__m`) AS `orders__rolling_amount_3d`
  FROM (VALUES
    (CAST($1 AS TIMESTAMP), CAST($3 AS TIMESTAMP)),
    (CAST($4 AS TIMESTAMP), CAST($5 AS TIMESTAMP)),
    (CAST($6 AS TIMESTAMP), CAST($7 AS TIMESTAMP)),
    (CAST($8 AS TIMESTAMP), CAST($9 AS TIMESTAMP)),
    (CAST($10 AS TIMESTAMP), CAST($2 AS TIMESTAMP))
  ) AS `series` (`date_from`, `date_to`)
  LEFT JOIN (
    SELECT
      date_trunc('DAY', `rows`.`__t`) AS `__t`,
      sum(`rows`.`__m`) AS `__m`
    FROM (
      SELECT DISTINCT
        (`orders`.created_at) AS `__t`,
        `orders`.id AS `__pk_0`,
        `orders`.amount AS `__m`
      FROM orders AS `orders`
      LEFT JOIN line_items AS `line_items` ON `orders`.id = `line_items`.order_id
      WHERE `orders`.created_at >= CAST($11 AS TIMESTAMP) AND `orders`.created_at <= CAST($12 AS TIMESTAMP) AND ((`orders`.created_at) > (CAST($1 AS TIMESTAMP) - INTERVAL '3' DAY) AND (`orders`.created_at) <= CAST($2 AS TIMESTAMP))
    ) AS `rows`
    GROUP BY date_trunc('DAY', `rows`.`__t`)
  ) AS `base` ON `base`.`__t` > (`series`.`date_to` - INTERVAL '3' DAY) AND `base`.`__t` <= `series`.`date_to`
  GROUP BY 1
) AS `q_2` ON `q_0`.`orders__created_at_day` IS NOT DISTINCT FROM `q_2`.`orders__created_at_day`
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["2024-03-04 00:00:00.000","2024-03-08 23:59:59.999","2024-03-04 23:59:59.999","2024-03-05 00:00:00.000","2024-03-05 23:59:59.999","2024-03-06 00:00:00.000","2024-03-06 23:59:59.999","2024-03-07 00:00:00.000","2024-03-07 23:59:59.999","2024-03-08 00:00:00.000","2024-02-29 00:00:00.000","2024-03-09 23:59:59.999"]
