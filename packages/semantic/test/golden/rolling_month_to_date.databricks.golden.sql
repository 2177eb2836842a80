SELECT
  `q_0`.`orders__created_at_week` AS `orders__created_at_week`,
  `q_0`.`orders__amount_mtd` AS `orders__amount_mtd`
FROM (
  SELECT
    `series`.`date_from` AS `orders__created_at_week`,
    sum(`base`.`__m`) AS `orders__amount_mtd`
  FROM (VALUES
    (CAST($1 AS TIMESTAMP), CAST($2 AS TIMESTAMP)),
    (CAST($3 AS TIMESTAMP), CAST($4 AS TIMESTAMP)),
    (CAST($5 AS TIMESTAMP), CAST($6 AS TIMESTAMP)),
    (CAST($7 AS TIMESTAMP), CAST($8 AS TIMESTAMP))
  ) AS `series` (`date_from`, `date_to`)
  LEFT JOIN (
    SELECT
      date_trunc('DAY', `rows`.`__t`) AS `__t`,
      sum(`rows`.`__m`) AS `__m`
    FROM (
      SELECT
        (`orders`.created_at) AS `__t`,
        `orders`.amount AS `__m`
      FROM orders AS `orders`
      WHERE `orders`.created_at >= CAST($9 AS TIMESTAMP) AND `orders`.created_at <= CAST($10 AS TIMESTAMP) AND ((`orders`.created_at) >= date_trunc('MONTH', CAST($1 AS TIMESTAMP)) AND (`orders`.created_at) <= CAST($8 AS TIMESTAMP))
    ) AS `rows`
    GROUP BY date_trunc('DAY', `rows`.`__t`)
  ) AS `base` ON `base`.`__t` >= date_trunc('MONTH', `series`.`date_from`) AND `base`.`__t` <= `series`.`date_to`
  GROUP BY 1
) AS `q_0`
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["2024-01-29 00:00:00.000","2024-02-04 23:59:59.999","2024-02-05 00:00:00.000","2024-02-11 23:59:59.999","2024-02-12 00:00:00.000","2024-02-18 23:59:59.999","2024-02-19 00:00:00.000","2024-02-25 23:59:59.999","2023-12-31 00:00:00.000","2024-02-26 23:59:59.999"]
