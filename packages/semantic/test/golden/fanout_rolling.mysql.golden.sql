SELECT * FROM (
  SELECT
    "q_0"."orders__created_at_day" AS "orders__created_at_day",
    "q_2"."orders__rolling_amount_3d" AS "orders__rolling_amount_3d",
    "q_0"."orders__count" AS "orders__count",
    COALESCE("q_1"."line_items__count", 0) AS "line_items__count"
  FROM (
    SELECT
      CAST(DATE(("orders".created_at)) AS DATETIME) AS "orders__created_at_day",
      count(*) AS "orders__count"
    FROM orders AS "orders"
    WHERE "orders".created_at >= CAST($1 AS DATETIME(3)) AND "orders".created_at <= CAST($2 AS DATETIME(3))
    GROUP BY 1
  ) AS "q_0"
  LEFT JOIN (
    SELECT
      CAST(DATE(("orders".created_at)) AS DATETIME) AS "orders__created_at_day",
      count("line_items".id) AS "line_items__count"
    FROM orders AS "orders"
    INNER JOIN line_items AS "line_items" ON "orders".id = "line_items".order_id
    WHERE "orders".created_at >= CAST($1 AS DATETIME(3)) AND "orders".created_at <= CAST($2 AS DATETIME(3))
    GROUP BY 1
  ) AS "q_1" ON "q_0"."orders__created_at_day" <=> "q_1"."orders__created_at_day"
  INNER JOIN (
    SELECT
      "series"."date_from" AS "orders__created_at_day",
      sum("base"."__m") AS "orders__rolling_amount_3d"
    FROM (SELECT CAST($1 AS DATETIME(3)) AS "date_from", CAST($3 AS DATETIME(3)) AS "date_to" UNION ALL SELECT CAST($4 AS DATETIME(3)), CAST($5 AS DATETIME(3)) UNION ALL SELECT CAST($6 AS DATETIME(3)), CAST($7 AS DATETIME(3)) UNION ALL SELECT CAST($8 AS DATETIME(3)), CAST($9 AS DATETIME(3)) UNION ALL SELECT CAST($10 AS DATETIME(3)), CAST($2 AS DATETIME(3))) AS "series"
    LEFT JOIN (
      SELECT
        CAST(DATE("rows"."__t") AS DATETIME) AS "__t",
        sum("rows"."__m") AS "__m"
      FROM (
        SELECT DISTINCT
          ("orders".created_at) AS "__t",
          "orders".id AS "__pk_0",
          "orders".amount AS "__m"
        FROM orders AS "orders"
        LEFT JOIN line_items AS "line_items" ON "orders".id = "line_items".order_id
        WHERE "orders".created_at >= CAST($11 AS DATETIME(3)) AND "orders".created_at <= CAST($12 AS DATETIME(3)) AND (("orders".created_at) > (CAST($1 AS DATETIME(3)) - INTERVAL 3 DAY) AND ("orders".created_at) <= CAST($2 AS DATETIME(3)))
      ) AS "rows"
      GROUP BY CAST(DATE("rows"."__t") AS DATETIME)
    ) AS "base" ON "base"."__t" > ("series"."date_to" - INTERVAL 3 DAY) AND "base"."__t" <= "series"."date_to"
    GROUP BY 1
  ) AS "q_2" ON "q_0"."orders__created_at_day" <=> "q_2"."orders__created_at_day"
) AS "ordered"
ORDER BY "orders__created_at_day" IS NULL, "orders__created_at_day" ASC
LIMIT 10000
-- params: ["2024-03-04 00:00:00.000","2024-03-08 23:59:59.999","2024-03-04 23:59:59.999","2024-03-05 00:00:00.000","2024-03-05 23:59:59.999","2024-03-06 00:00:00.000","2024-03-06 23:59:59.999","2024-03-07 00:00:00.000","2024-03-07 23:59:59.999","2024-03-08 00:00:00.000","2024-02-29 00:00:00.000","2024-03-09 23:59:59.999"]
