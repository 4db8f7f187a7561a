-- board_results: the results the leaderboard views score. Every row of results, plus, for a
-- scored-only run (a <benchmark>/<mode>/scored/<model> directory with no run of its own:
-- analysis/ingest_external_results.py stages external models as scored.jsonl + summary.json,
-- their results having been made and scored elsewhere), one row per (qid, run_index) of its
-- authors' score rows, so that it reaches the boards like any run.

CREATE OR REPLACE VIEW board_results AS
SELECT run_id, qid, run_index, task, task_group, status, false AS scored_elsewhere
FROM results
UNION ALL
SELECT
    q.run_id,
    q.qid,
    q.run_index,
    min(q.task) AS task,
    -- the task family, as results.task_group of a multimodal result (etl/normalize.py)
    CASE WHEN split_part(min(q.task), '_', 1) IN ('ehrxqa', 'medmod')
         THEN split_part(min(q.task), '_', 1) END AS task_group,
    CASE WHEN min(q.status) IN ('success', 'ok') THEN 'success'
         WHEN min(q.status) = 'error' THEN 'error'
         ELSE 'incomplete' END AS status,
    true AS scored_elsewhere
FROM question_scores AS q
JOIN runs AS r ON r.run_id = q.run_id
-- the board defaults read from the authors' files (scorers: scored, rescored)
WHERE q.scorer IN (SELECT scorer FROM scorers
                   WHERE question_rows = 'authors_file' AND default_for IS NOT NULL)
    AND split_part(r.run_id, '/', 3) = 'scored'
    AND NOT EXISTS (SELECT 1 FROM results AS x WHERE x.run_id = q.run_id)
GROUP BY q.run_id, q.qid, q.run_index;

COMMENT ON VIEW board_results IS 'The results the leaderboard views score: every row of results, plus one row per (qid, run_index) of the authors'' score rows (scored / rescored) of each scored-only run, whose results were made and scored outside this tree (a <benchmark>/<mode>/scored/<model> directory with no run of its own, as analysis/ingest_external_results.py stages external models).';
COMMENT ON COLUMN board_results.run_id IS 'Run of the result.';
COMMENT ON COLUMN board_results.qid IS 'Question id.';
COMMENT ON COLUMN board_results.run_index IS '1-based run number.';
COMMENT ON COLUMN board_results.task IS 'Task of the question.';
COMMENT ON COLUMN board_results.task_group IS 'results.task_group; for a scored-only run the task family (ehrxqa, medmod) of its task.';
COMMENT ON COLUMN board_results.status IS 'success, incomplete or error: results.status; for a scored-only run the status of its score row (success / ok -> success, error -> error, anything else incomplete).';
COMMENT ON COLUMN board_results.scored_elsewhere IS 'True for the rows of a scored-only run (no results rows: scored outside this tree).';
