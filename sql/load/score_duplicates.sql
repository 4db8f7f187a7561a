-- Score rows that scores.sql did not load because a later record of the same file (or a
-- file earlier in path order) holds the same (run, scorer, qid, run_index): counted in
-- files.n_duplicates so that no score row disappears without a trace. The ranking is the
-- one of scores.sql.
UPDATE files SET n_duplicates = coalesce(files.n_duplicates, 0) + d.n
FROM (
    SELECT file_id, count(*) AS n
    FROM (
        SELECT s.file_id,
               row_number() OVER (PARTITION BY s.run_id, s.scorer, s.qid, s.run_index
                                  ORDER BY f.path, s.rec_no DESC) AS pick
        FROM read_parquet($files) AS s
        JOIN stage_files AS f ON f.file_id = s.file_id
    )
    WHERE pick > 1
    GROUP BY file_id
) AS d
WHERE files.file_id = d.file_id;
