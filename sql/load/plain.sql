-- Tables without duplicates to resolve: every staged row lands.
-- {table} and {select} are built from identifiers from schema/, never values from the data.
INSERT INTO {table} BY NAME
SELECT {select}
FROM read_parquet($files) AS s;
