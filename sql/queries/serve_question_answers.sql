-- Every answer to one question ($qid of $benchmark; NULL: any) by a run that is not archived:
-- split, model,
-- mode, attempt, status, the prediction as the run's default scorer read it (the result's
-- own prediction where the scorer keeps none), the leaderboard score of that attempt and
-- the scorer it came from, where the scorer found the prediction, and the error class.
SELECT
    r.run_id, r.mode, r.split, r.model,
    coalesce(m.display_name, r.model) AS display_name,
    r.run_index, r.status, r.stop_reason,
    coalesce(qs.predictions, qs.prediction_strs, r.prediction) AS prediction,
    qs.prediction_source,
    s.score, s.source_score, s.score_source,
    e.error_class,
    r.n_messages, r.n_tool_calls
FROM results AS r
JOIN runs AS ru ON ru.run_id = r.run_id
LEFT JOIN models AS m ON m.model = r.model
LEFT JOIN leaderboard_result_scores AS s
    ON s.run_id = r.run_id AND s.qid = r.qid AND s.run_index = r.run_index
LEFT JOIN question_scores AS qs
    ON qs.run_id = r.run_id AND qs.qid = r.qid AND qs.run_index = r.run_index
    AND qs.qid = $qid -- bound, so the scan of question_scores is filtered
    AND qs.scorer = s.score_source
LEFT JOIN result_error_class AS e
    ON e.run_id = r.run_id AND e.qid = r.qid AND e.run_index = r.run_index
WHERE ($benchmark IS NULL OR r.benchmark = $benchmark) AND r.qid = $qid
    AND NOT coalesce(ru.is_archived, false)
ORDER BY r.mode, r.split, s.score DESC NULLS LAST, r.run_id, r.run_index
