-- Rows and bytes (uncompressed, every column) of each row group of staged Parquet files,
-- from their footers alone: what etl/pipeline/load.py heaviest_vector plans memory from.
SELECT file_name, row_group_id, max(row_group_num_rows) AS n_rows,
       sum(total_uncompressed_size) AS n_bytes
FROM parquet_metadata($files)
GROUP BY file_name, row_group_id;
