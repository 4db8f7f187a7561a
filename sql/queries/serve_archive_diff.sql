-- The per-question diff of one archived run ($archived) against the run that superseded it.
SELECT * FROM archive_diff WHERE archived_run_id = $archived ORDER BY task, qid, run_index
