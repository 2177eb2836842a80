SELECT
  `customers`.name AS `customers__name`,
  count(*) AS `customers__count`
FROM customers AS `customers`
WHERE (LOWER(`customers`.name) LIKE LOWER('%' || @p1 || '%') OR LOWER(`customers`.name) LIKE LOWER('%' || @p2 || '%')) AND (LOWER(`customers`.email) NOT LIKE LOWER('%' || @p3) OR `customers`.email IS NULL) AND `customers`.country IS NOT NULL
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["a","o","@example.org"]
