-- One result ($run, $qid, $run_index) for the trajectory viewer: the record's fields (the
-- question text cut to $chars characters; question_chars says how long it is), and the
-- prediction as the run's default scorer read it (scored_prediction, prediction_source).
SELECT
    r.run_id, r.benchmark, r.mode, r.split, r.model,
    coalesce(m.display_name, r.model) AS display_name,
    r.task_group, r.task, r.qid, r.run_index, r.status, r.raw_status, r.stop_reason,
    r.completed, r.error, r.label, r.gold, r.prediction, r.prediction_items,
    r.n_messages, r.n_tool_calls, r.n_images, r.backend_model_id, r.backend_region,
    substr(r.question, 1, $chars) AS question, length(r.question) AS question_chars,
    s.score AS leaderboard_score, s.score_source, e.error_class,
    coalesce(qs.predictions, qs.prediction_strs) AS scored_prediction,
    qs.prediction_source,
    f.path AS source_path, r.line_no
FROM results AS r
LEFT JOIN models AS m ON m.model = r.model
LEFT JOIN leaderboard_result_scores AS s
    ON s.run_id = r.run_id AND s.qid = r.qid AND s.run_index = r.run_index
LEFT JOIN question_scores AS qs
    ON qs.run_id = r.run_id AND qs.qid = r.qid AND qs.run_index = r.run_index
    AND qs.run_id = $run AND qs.qid = $qid -- bound, so the scan of question_scores is filtered
    AND qs.scorer = s.score_source
LEFT JOIN result_error_class AS e
    ON e.run_id = r.run_id AND e.qid = r.qid AND e.run_index = r.run_index
LEFT JOIN files AS f ON f.file_id = r.file_id
WHERE r.run_id = $run AND r.qid = $qid AND r.run_index = $run_index
