SELECT
  ($2::timestamp + make_interval(months => (floor((extract(year from age(("orders".created_at)::timestamptz AT TIME ZONE $1::text, $2::timestamp)) * 12 + extract(month from age(("orders".created_at)::timestamptz AT TIME ZONE $1::text, $2::timestamp))) / 3) * 3)::int)) AS "orders__created_at_fiscal_quarter",
  count("orders".id) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC
LIMIT 10000
-- params: ["UTC","1970-02-01T00:00:00.000"]
