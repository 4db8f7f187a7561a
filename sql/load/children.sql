-- Child rows (messages, tool_calls, images, scores computed from the record) of the
-- preferred copies to load only (load_keys of result_changes.sql).
-- {table} and {select} are built from identifiers from schema/, never values from the data.
INSERT INTO {table} BY NAME
SELECT {select}
FROM read_parquet($files) AS s
SEMI JOIN load_keys AS k ON k.file_id = s.file_id AND k.rec_no = s.rec_no;
