-- The results the side-by-side page puts together: every attempt of question $qid in runs
-- $run_a and $run_b (read in one scan; the range before the IN lets DuckDB skip the other
-- runs' rows), with what the page shows of each: model, status, gold, the prediction as
-- the run's default scorer read it, the leaderboard score and its scorer. The page picks
-- the attempts it was asked for (the first by default).
SELECT
    r.run_id, r.run_index, r.benchmark, r.mode, r.model,
    coalesce(m.display_name, r.model) AS display_name,
    r.status, r.stop_reason, r.gold, r.prediction,
    s.score AS leaderboard_score, s.score_source,
    coalesce(qs.predictions, qs.prediction_strs) AS scored_prediction,
    qs.prediction_source
FROM results AS r
LEFT JOIN models AS m ON m.model = r.model
LEFT JOIN leaderboard_result_scores AS s
    ON s.run_id = r.run_id AND s.qid = r.qid AND s.run_index = r.run_index
LEFT JOIN question_scores AS qs
    ON qs.run_id = r.run_id AND qs.qid = r.qid AND qs.run_index = r.run_index
    AND qs.scorer = s.score_source
    AND qs.qid = $qid -- bound, so the scan of question_scores is filtered
WHERE r.run_id BETWEEN least($run_a, $run_b) AND greatest($run_a, $run_b)
    AND r.run_id IN ($run_a, $run_b) AND r.qid = $qid
ORDER BY r.run_id, r.run_index
