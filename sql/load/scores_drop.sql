-- Score rows read from the per-question score files of the runs this load re-ranks: they
-- are loaded again (scores.sql), so the loaded ones go first. Rows computed from a result
-- record (files of $result_kinds) are replaced with their result (result_changes.sql).
DELETE FROM question_scores
WHERE run_id IN (SELECT run_id FROM load_runs)
  AND file_id IN (SELECT file_id FROM loaded_files
                  WHERE NOT list_contains($result_kinds, kind));
