-- The questions of one run ($run), of one task when $task is not NULL: every question the
-- boards score (board_results: a scored-only run's score rows too) and every result, with
-- the first attempt's status, gold and (cut) prediction as the run's default scorer $scorer
-- read it (the result's own where the scorer keeps none; a scored-only run has only its
-- score row's), and the question's leaderboard score (mean over its runs; NULL for a run
-- that is not on the leaderboard). has_result: the attempt has a results row (a
-- trajectory to open).
WITH attempts AS (
    SELECT run_id, qid, run_index, task, task_group, status FROM board_results
    WHERE run_id = $run
    UNION
    SELECT run_id, qid, run_index, task, task_group, status FROM results
    WHERE run_id = $run
)
SELECT
    a.qid,
    a.task_group,
    a.task,
    min(a.run_index) AS first_run_index,
    count(*) AS n_runs,
    arg_min(a.status, a.run_index) AS status,
    arg_min(coalesce(r.gold, qs.gold_names), a.run_index) AS gold,
    substr(arg_min(coalesce(qs.predictions, qs.prediction_strs, r.prediction),
                   a.run_index), 1, 300) AS prediction,
    any_value(q.score) AS score,
    sum(r.n_messages) AS n_messages,
    sum(r.n_tool_calls) AS n_tool_calls,
    bool_or(r.run_id IS NOT NULL) AS has_result
FROM attempts AS a
LEFT JOIN results AS r
    ON r.run_id = a.run_id AND r.qid = a.qid AND r.run_index = a.run_index
    AND r.run_id = $run -- bound, so the scan of results is filtered
LEFT JOIN leaderboard_question_scores AS q ON q.run_id = a.run_id AND q.qid = a.qid
LEFT JOIN question_scores AS qs
    ON qs.run_id = a.run_id AND qs.qid = a.qid AND qs.run_index = a.run_index
    AND qs.run_id = $run -- bound, so the scan of question_scores is filtered
    AND qs.scorer = $scorer
WHERE $task IS NULL OR a.task = $task
GROUP BY a.qid, a.task_group, a.task
ORDER BY a.task_group, a.task, a.qid
