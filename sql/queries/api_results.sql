-- Warehouse.results(): the result rows of the runs in $runs (api_scope_runs.sql picks them),
-- of question $qid when given, each with the board's score of the result by $scorer (NULL:
-- the run's default scorer; leaderboard_result_scores_all) and that scorer's name: both NULL
-- for a run on no leaderboard (archived, smoke or partial split). The JSON arrays gold,
-- prediction_items and nonfinite_keys come back as lists; label and prediction stay the JSON
-- text of the values as written (a string, a list or an object).
WITH wanted AS (
    SELECT unnest($runs) AS run_id
),
board AS (
    SELECT run_id, qid, run_index, score, scorer
    FROM leaderboard_result_scores_all
    WHERE run_id IN (SELECT run_id FROM wanted)
        AND CASE WHEN $scorer IS NULL THEN is_default ELSE scorer = $scorer END
)
SELECT
    r.* REPLACE (
        from_json(r.gold, '["VARCHAR"]') AS gold,
        from_json(r.prediction_items, '["VARCHAR"]') AS prediction_items,
        from_json(r.nonfinite_keys, '["VARCHAR"]') AS nonfinite_keys
    ),
    coalesce(m.display_name, r.model) AS display_name,
    b.score,
    b.scorer,
    e.error_class
FROM results AS r
LEFT JOIN models AS m ON m.model = r.model
LEFT JOIN board AS b ON b.run_id = r.run_id AND b.qid = r.qid AND b.run_index = r.run_index
LEFT JOIN result_error_class AS e
    ON e.run_id = r.run_id AND e.qid = r.qid AND e.run_index = r.run_index
WHERE r.run_id IN (SELECT run_id FROM wanted)
    AND ($qid IS NULL OR r.qid = $qid)
ORDER BY r.run_id, r.qid, r.run_index
