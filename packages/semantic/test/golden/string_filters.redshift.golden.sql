SELECT
  "customers".name AS "customers__name",
  count(*) AS "customers__count"
FROM customers AS "customers"
WHERE (LOWER("customers".name) LIKE LOWER('%' || $1 || '%') ESCAPE '\\' OR LOWER("customers".name) LIKE LOWER('%' || $2 || '%') ESCAPE '\\') AND (LOWER("customers".email) NOT LIKE LOWER('%' || $3) ESCAPE '\\' OR "customers".email IS NULL) AND "customers".country IS NOT NULL
GROUP BY 1
ORDER BY 1 ASC
LIMIT 10000
-- params: ["a","o","@example.org"]
