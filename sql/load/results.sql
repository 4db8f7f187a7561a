-- The preferred copies to load (load_keys of result_changes.sql), with how many copies the
-- run held. {select} is built from identifiers of schema/ (and sql/redact/), never from the
-- data; error_kind is the expression of sql/load/error_kind.sql, over the raw (unredacted) row.
INSERT INTO results BY NAME
SELECT {select}, k.n_copies, {error_kind} AS error_kind
FROM read_parquet($files) AS s
JOIN load_keys AS k ON k.file_id = s.file_id AND k.rec_no = s.rec_no;
