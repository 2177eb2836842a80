SELECT * FROM (
  SELECT
    "customers".name AS "customers__name",
    count(*) AS "customers__count"
  FROM customers AS "customers"
  WHERE (LOWER("customers".name) LIKE LOWER(CONCAT('%', $1, '%')) OR LOWER("customers".name) LIKE LOWER(CONCAT('%', $2, '%'))) AND (LOWER("customers".email) NOT LIKE LOWER(CONCAT('%', $3)) OR "customers".email IS NULL) AND "customers".country IS NOT NULL
  GROUP BY 1
) AS "ordered"
ORDER BY "customers__name" IS NULL, "customers__name" ASC
LIMIT 10000
-- params: ["a","o","@example.org"]
