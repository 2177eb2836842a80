SELECT
  "q_0"."orders__created_at_day" AS "orders__created_at_day",
  "q_2"."orders__rolling_amount_3d" AS "orders__rolling_amount_3d",
  "q_0"."orders__count" AS "orders__count",
  COALESCE("q_1"."line_items__count", 0) AS "line_items__count"
FROM (
  SELECT
    date_trunc('day', ("orders".created_at)::timestamptz AT TIME ZONE $1::text) AS "orders__created_at_day",
    count(*) AS "orders__count"
  FROM orders AS "orders"
  WHERE "orders".created_at >= $2::timestamp AND "orders".created_at <= $3::timestamp
  GROUP BY 1
) AS "q_0"
LEFT JOIN (
  SELECT
    date_trunc('day', ("orders".created_at)::timestamptz AT TIME ZONE $1::text) AS "orders__created_at_day",
    count("line_items".id) AS "line_items__count"
  FROM orders AS "orders"
  INNER JOIN line_items AS "line_items" ON "orders".id = "line_items".order_id
  WHERE "orders".created_at >= $2::timestamp AND "orders".created_at <= $3::timestamp
  GROUP BY 1
) AS "q_1" ON "q_0"."orders__created_at_day" IS NOT DISTINCT FROM "q_1"."orders__created_at_day"
INNER JOIN (
  SELECT
    "series"."date_from" AS "orders__created_at_day",
    sum("base"."__m") AS "orders__rolling_amount_3d"
  FROM (VALUES
    ($2::timestamp, $4::timestamp),
    ($5::timestamp, $6::timestamp),
    ($7::timestamp, $8::timestamp),
    ($9::timestamp, $10::timestamp),
    ($11::timestamp, $3::timestamp)
  ) AS "series" ("date_from", "date_to")
  LEFT JOIN (
    SELECT
      date_trunc('day', "rows"."__t") AS "__t",
      sum("rows"."__m") AS "__m"
    FROM (
      SELECT DISTINCT
        ("orders".created_at)::timestamptz AT TIME ZONE $1::text AS "__t",
        "orders".id AS "__pk_0",
        "orders".amount AS "__m"
      FROM orders AS "orders"
      LEFT JOIN line_items AS "line_items" ON "orders".id = "line_items".order_id
      WHERE "orders".created_at >= $12::timestamp AND "orders".created_at <= $13::timestamp AND (("orders".created_at)::timestamptz AT TIME ZONE $1::text > ($2::timestamp - INTERVAL '3 days') AND ("orders".created_at)::timestamptz AT TIME ZONE $1::text <= $3::timestamp)
    ) AS "rows"
    GROUP BY date_trunc('day', "rows"."__t")
  ) AS "base" ON "base"."__t" > ("series"."date_to" - INTERVAL '3 days') AND "base"."__t" <= "series"."date_to"
  GROUP BY 1
) AS "q_2" ON "q_0"."orders__created_at_day" IS NOT DISTINCT FROM "q_2"."orders__created_at_day"
ORDER BY 1 ASC
LIMIT 10000
-- params: ["UTC","2024-03-04T00:00:00.000","2024-03-08T23:59:59.999","2024-03-04T23:59:59.999","2024-03-05T00:00:00.000","2024-03-05T23:59:59.999","2024-03-06T00:00:00.000","2024-03-06T23:59:59.999","2024-03-07T00:00:00.000","2024-03-07T23:59:59.999","2024-03-08T00:00:00.000","2024-02-29T00:00:00.000","2024-03-09T23:59:59.999"]
