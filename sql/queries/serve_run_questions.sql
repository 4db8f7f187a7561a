-- The questions of one run ($run), of one task when $task is not NULL: the first attempt's
-- status, gold and (cut) prediction as the run's default scorer $scorer read it (the
-- result's own where the scorer keeps none), and the question's leaderboard score (mean
-- over its runs; NULL for a run that is not on the leaderboard).
SELECT
    r.qid,
    r.task_group,
    r.task,
    min(r.run_index) AS first_run_index,
    count(*) AS n_runs,
    arg_min(r.status, r.run_index) AS status,
    arg_min(r.gold, r.run_index) AS gold,
    substr(arg_min(coalesce(qs.predictions, qs.prediction_strs, r.prediction),
                   r.run_index), 1, 300) AS prediction,
    any_value(q.score) AS score,
    sum(r.n_messages) AS n_messages,
    sum(r.n_tool_calls) AS n_tool_calls
FROM results AS r
LEFT JOIN leaderboard_question_scores AS q ON q.run_id = r.run_id AND q.qid = r.qid
LEFT JOIN question_scores AS qs
    ON qs.run_id = r.run_id AND qs.qid = r.qid AND qs.run_index = r.run_index
    AND qs.run_id = $run -- bound, so the scan of question_scores is filtered
    AND qs.scorer = $scorer
WHERE r.run_id = $run AND ($task IS NULL OR r.task = $task)
GROUP BY r.qid, r.task_group, r.task
ORDER BY r.task_group, r.task, r.qid
