SELECT
  `customers`.name AS `customers__name`,
  count(*) AS `customers__count`
FROM customers AS `customers`
WHERE (`customers`.name ILIKE ('%' || $1 || '%') ESCAPE '\\' OR `customers`.name ILIKE ('%' || $2 || '%') ESCAPE '\\') AND (`customers`.email NOT ILIKE ('%' || $3) ESCAPE '\\' OR `customers`.email IS NULL) AND `customers`.country IS NOT NULL
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["a","o","@example.org"]
