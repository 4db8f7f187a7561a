-- The per-question diff of every archived run against the run that superseded it
-- (archive_diff), computed once per warehouse file by the explorer.
SELECT * FROM archive_diff ORDER BY archived_run_id, task, qid, run_index
