-- The preferred copy of each result, with how many copies the run held.
-- {select} is built from identifiers of schema/ (and sql/redact/), never from the data;
-- error_kind is the expression of sql/load/error_kind.sql, over the raw (unredacted) row.
INSERT INTO results BY NAME
SELECT {select}, c.n_copies, {error_kind} AS error_kind
FROM read_parquet($files) AS s
JOIN result_copies AS c ON c.file_id = s.file_id AND c.rec_no = s.rec_no AND c.pick = 1
ORDER BY s.run_id, s.qid, s.run_index;
