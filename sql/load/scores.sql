-- Scores read from the authors' per-question files: one row per (run, scorer, qid,
-- run_index); where a file repeats one, the last record wins, as for results.
INSERT INTO question_scores BY NAME
SELECT {select}
FROM read_parquet($files) AS s
JOIN stage_files AS f ON f.file_id = s.file_id
QUALIFY row_number() OVER (PARTITION BY s.run_id, s.scorer, s.qid, s.run_index
                           ORDER BY f.path, s.rec_no DESC) = 1;
