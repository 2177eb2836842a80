SELECT
  "customers".name AS "customers__name",
  count(*) AS "customers__count"
FROM customers AS "customers"
WHERE (lower("customers".name) LIKE lower('%' || $1 || '%') ESCAPE '\' OR lower("customers".name) LIKE lower('%' || $2 || '%') ESCAPE '\') AND (lower("customers".email) NOT LIKE lower('%' || $3) ESCAPE '\' OR "customers".email IS NULL) AND "customers".country IS NOT NULL
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["a","o","@example.org"]
