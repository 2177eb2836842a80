SELECT
  `q_0`.`orders__created_at_week` AS `orders__created_at_week`,
  `q_0`.`orders__amount_mtd` AS `orders__amount_mtd`
FROM (
  SELECT
    `series`.`date_from` AS `orders__created_at_week`,
    sum(`base`.`__m`) AS `orders__amount_mtd`
  FROM (SELECT CAST(@p1 AS DATETIME) AS `date_from`, CAST(@p2 AS DATETIME) AS `date_to` UNION ALL SELECT CAST(@p3 AS DATETIME), CAST(@p4 AS DATETIME) UNION ALL SELECT CAST(@p5 AS DATETIME), CAST(@p6 AS DATETIME) UNION ALL SELECT CAST(@p7 AS DATETIME), CAST(@p8 AS DATETIME)) AS `series`
  LEFT JOIN (
    SELECT
      DATETIME_TRUNC(`rows`.`__t`, DAY) AS `__t`,
      sum(`rows`.`__m`) AS `__m`
    FROM (
      SELECT
        DATETIME(`orders`.created_at) AS `__t`,
        `orders`.amount AS `__m`
      FROM orders AS `orders`
      WHERE `orders`.created_at >= CAST(@p9 AS TIMESTAMP) AND `orders`.created_at <= CAST(@p10 AS TIMESTAMP) AND (DATETIME(`orders`.created_at) >= DATETIME_TRUNC(CAST(@p1 AS DATETIME), MONTH) AND DATETIME(`orders`.created_at) <= CAST(@p8 AS DATETIME))
    ) AS `rows`
    GROUP BY DATETIME_TRUNC(`rows`.`__t`, DAY)
  ) AS `base` ON (`series`.`date_from` IS NULL) = (`base`.`__t` IS NULL) AND `base`.`__t` >= DATETIME_TRUNC(`series`.`date_from`, MONTH) AND `base`.`__t` <= `series`.`date_to`
  GROUP BY 1
) AS `q_0`
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["2024-01-29 00:00:00.000","2024-02-04 23:59:59.999","2024-02-05 00:00:00.000","2024-02-11 23:59:59.999","2024-02-12 00:00:00.000","2024-02-18 23:59:59.999","2024-02-19 00:00:00.000","2024-02-25 23:59:59.999","2023-12-31 00:00:00.000","2024-02-26 23:59:59.999"]
