-- Child rows (messages, tool_calls, images, set_f1 scores) of the preferred copies only.
-- {table} and {select} are built from identifiers from schema/, never values from the data.
INSERT INTO {table} BY NAME
SELECT {select}
FROM read_parquet($files) AS s
SEMI JOIN (SELECT file_id, rec_no FROM result_copies WHERE pick = 1) AS c
    ON c.file_id = s.file_id AND c.rec_no = s.rec_no;
