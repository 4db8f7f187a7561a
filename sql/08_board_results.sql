-- board_results: the results the leaderboard views score. Every row of results, plus, for a
-- scored-only run (runs.scored_elsewhere, decided when the tree is walked: a
-- <benchmark>/<mode>/scored/<model> directory with no run of its own;
-- analysis/ingest_external_results.py stages external models as scored.jsonl + summary.json,
-- their results having been made and scored elsewhere), one row per (qid, run_index) of its
-- authors' score rows, so that it reaches the boards like any run. Such a row's status and
-- task group were read at parse time by the rules results use (question_scores.result_status,
-- .task_group).

CREATE OR REPLACE VIEW board_results AS
SELECT run_id, qid, run_index, task, task_group, status, false AS scored_elsewhere
FROM results
UNION ALL
SELECT
    q.run_id,
    q.qid,
    q.run_index,
    min(q.task) AS task,
    min(q.task_group) AS task_group,
    min(q.result_status) AS status,
    true AS scored_elsewhere
FROM question_scores AS q
JOIN runs AS r ON r.run_id = q.run_id
-- the board defaults read from the authors' files (scorers: scored, rescored)
WHERE q.scorer IN (SELECT scorer FROM scorers
                   WHERE question_rows = 'authors_file' AND default_for IS NOT NULL)
    AND r.scored_elsewhere
GROUP BY q.run_id, q.qid, q.run_index;

COMMENT ON VIEW board_results IS 'The results the leaderboard views score: every row of results, plus one row per (qid, run_index) of the authors'' score rows (scored / rescored) of each scored-only run (runs.scored_elsewhere), whose results were made and scored outside this tree (a <benchmark>/<mode>/scored/<model> directory with no run of its own, as analysis/ingest_external_results.py stages external models).';
COMMENT ON COLUMN board_results.run_id IS 'Run of the result.';
COMMENT ON COLUMN board_results.qid IS 'Question id.';
COMMENT ON COLUMN board_results.run_index IS '1-based run number.';
COMMENT ON COLUMN board_results.task IS 'Task of the question.';
COMMENT ON COLUMN board_results.task_group IS 'results.task_group; for a scored-only run the group of its score row''s task (question_scores.task_group: the multimodal family of its name).';
COMMENT ON COLUMN board_results.status IS 'success, incomplete or error: results.status; for a scored-only run the status of its score row by the same map (question_scores.result_status: ok -> success, anything unknown incomplete).';
COMMENT ON COLUMN board_results.scored_elsewhere IS 'True for the rows of a scored-only run (no results rows: scored outside this tree).';
