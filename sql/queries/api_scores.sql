-- Warehouse.scores(): the question_scores rows of the runs in $runs (api_scope_runs.sql), of
-- question $qid and scorer $scorer when given, with the run's benchmark, mode, split and
-- model; the JSON arrays gold_names, prediction_strs and predictions as lists (items as
-- text).
SELECT
    u.benchmark, u.mode, u.split, u.model,
    s.* REPLACE (
        from_json(s.gold_names, '["VARCHAR"]') AS gold_names,
        from_json(s.prediction_strs, '["VARCHAR"]') AS prediction_strs,
        from_json(s.predictions, '["VARCHAR"]') AS predictions
    )
FROM question_scores AS s
JOIN runs AS u ON u.run_id = s.run_id
WHERE s.run_id IN (SELECT unnest($runs))
    AND ($qid IS NULL OR s.qid = $qid)
    AND ($scorer IS NULL OR s.scorer = $scorer)
ORDER BY s.run_id, s.qid, s.run_index, s.scorer
