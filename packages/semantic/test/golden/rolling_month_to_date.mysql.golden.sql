SELECT * FROM (
  SELECT
    "q_0"."orders__created_at_week" AS "orders__created_at_week",
    "q_0"."orders__amount_mtd" AS "orders__amount_mtd"
  FROM (
    SELECT
      "series"."date_from" AS "orders__created_at_week",
      sum("base"."__m") AS "orders__amount_mtd"
    FROM (SELECT CAST($1 AS DATETIME(3)) AS "date_from", CAST($2 AS DATETIME(3)) AS "date_to" UNION ALL SELECT CAST($3 AS DATETIME(3)), CAST($4 AS DATETIME(3)) UNION ALL SELECT CAST($5 AS DATETIME(3)), CAST($6 AS DATETIME(3)) UNION ALL SELECT CAST($7 AS DATETIME(3)), CAST($8 AS DATETIME(3))) AS "series"
    LEFT JOIN (
      SELECT
        CAST(DATE("rows"."__t") AS DATETIME) AS "__t",
        sum("rows"."__m") AS "__m"
      FROM (
        SELECT
          ("orders".created_at) AS "__t",
          "orders".amount AS "__m"
        FROM orders AS "orders"
        WHERE "orders".created_at >= CAST($9 AS DATETIME(3)) AND "orders".created_at <= CAST($10 AS DATETIME(3)) AND (("orders".created_at) >= CAST(DATE_FORMAT(CAST($1 AS DATETIME(3)), '%Y-%m-01') AS DATETIME) AND ("orders".created_at) <= CAST($8 AS DATETIME(3)))
      ) AS "rows"
      GROUP BY CAST(DATE("rows"."__t") AS DATETIME)
    ) AS "base" ON "base"."__t" >= CAST(DATE_FORMAT("series"."date_from", '%Y-%m-01') AS DATETIME) AND "base"."__t" <= "series"."date_to"
    GROUP BY 1
  ) AS "q_0"
) AS "ordered"
ORDER BY "orders__created_at_week" IS NULL, "orders__created_at_week" ASC
LIMIT 10000
-- params: ["2024-01-29 00:00:00.000","2024-02-04 23:59:59.999","2024-02-05 00:00:00.000","2024-02-11 23:59:59.999","2024-02-12 00:00:00.000","2024-02-18 23:59:59.999","2024-02-19 00:00:00.000","2024-02-25 23:59:59.999","2023-12-31 00:00:00.000","2024-02-26 23:59:59.999"]
