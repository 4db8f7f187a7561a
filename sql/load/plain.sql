-- Tables without duplicates to resolve: every staged row lands.
-- {table} and {extras} are identifiers from schema/, never values from the data.
INSERT INTO {table} BY NAME
SELECT s.* EXCLUDE ({extras})
FROM read_parquet($files, union_by_name = true) AS s;
