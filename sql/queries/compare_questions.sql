-- Per-question comparison of two leaderboard runs ($run_a, $run_b): every question either
-- answered, with the gold and both predictions as their scorers read them (first run_index;
-- lists of items, as results() gives gold and prediction_items),
-- both scores and the outcome,
-- and each side's prediction source under its run's default scorer (first run_index; the
-- authors' text scorer's finish_tool_call / no_prediction / ..., the mm scorer's note).
-- The BETWEEN before each IN is for speed: DuckDB applies a range on run_id inside the
-- table scan, so only the two runs' rows are read in full (an IN of two values is applied
-- after every column of every row was read: 3x slower at bench scale).
WITH a AS (
    SELECT q.qid, q.task_group, q.task, q.score, q.n_runs
    FROM leaderboard_question_scores AS q WHERE q.run_id = $run_a
),
b AS (
    SELECT q.qid, q.task_group, q.task, q.score, q.n_runs
    FROM leaderboard_question_scores AS q WHERE q.run_id = $run_b
),
first_results AS (
    SELECT
        run_id, qid,
        arg_min(gold, run_index) AS gold,
        arg_min(prediction_items, run_index) AS prediction_items,
        arg_min(status, run_index) AS status
    FROM results
    WHERE run_id BETWEEN least($run_a, $run_b) AND greatest($run_a, $run_b)
        AND run_id IN ($run_a, $run_b)
    GROUP BY run_id, qid
),
sources AS (
    -- The prediction shown is the one the run's default scorer scored (the authors' text
    -- scorer reads finish calls the ingest's own prediction column does not); the result's
    -- prediction only where the scorer keeps none (rows read from score files).
    SELECT q.run_id, q.qid,
           arg_min(coalesce(q.prediction_source, q.note), q.run_index) AS prediction_source,
           arg_min(coalesce(q.predictions, q.prediction_strs), q.run_index) AS scored_prediction
    FROM question_scores AS q
    JOIN leaderboard_runs AS lr ON lr.run_id = q.run_id AND q.scorer = lr.score_source
    WHERE q.run_id BETWEEN least($run_a, $run_b) AND greatest($run_a, $run_b)
        AND q.run_id IN ($run_a, $run_b)
    GROUP BY q.run_id, q.qid
),
classes AS (
    SELECT run_id, qid, arg_min(error_class, run_index) AS error_class
    FROM result_error_class
    WHERE run_id BETWEEN least($run_a, $run_b) AND greatest($run_a, $run_b)
        AND run_id IN ($run_a, $run_b)
    GROUP BY run_id, qid
)
SELECT
    coalesce(a.qid, b.qid) AS qid,
    coalesce(a.task_group, b.task_group) AS task_group,
    coalesce(a.task, b.task) AS task,
    -- lists, as results() gives them: the gold items and each side's answer items as its
    -- scorer read them (the normalized items where the scorer keeps none)
    from_json(coalesce(ra.gold, rb.gold), '["VARCHAR"]') AS gold,
    from_json(coalesce(sa.scored_prediction, ra.prediction_items), '["VARCHAR"]')
        AS prediction_a,
    from_json(coalesce(sb.scored_prediction, rb.prediction_items), '["VARCHAR"]')
        AS prediction_b,
    a.score AS score_a,
    b.score AS score_b,
    a.score - b.score AS diff,
    CASE
        WHEN a.qid IS NULL THEN 'only_b'
        WHEN b.qid IS NULL THEN 'only_a'
        WHEN a.score - b.score > 1e-12 THEN 'a_better'
        WHEN b.score - a.score > 1e-12 THEN 'b_better'
        ELSE 'tie'
    END AS outcome,
    ra.status AS status_a,
    rb.status AS status_b,
    ca.error_class AS error_class_a,
    cb.error_class AS error_class_b,
    sa.prediction_source AS prediction_source_a,
    sb.prediction_source AS prediction_source_b
FROM a
FULL OUTER JOIN b ON b.qid = a.qid
LEFT JOIN first_results AS ra ON ra.run_id = $run_a AND ra.qid = coalesce(a.qid, b.qid)
LEFT JOIN first_results AS rb ON rb.run_id = $run_b AND rb.qid = coalesce(a.qid, b.qid)
LEFT JOIN classes AS ca ON ca.run_id = $run_a AND ca.qid = coalesce(a.qid, b.qid)
LEFT JOIN classes AS cb ON cb.run_id = $run_b AND cb.qid = coalesce(a.qid, b.qid)
LEFT JOIN sources AS sa ON sa.run_id = $run_a AND sa.qid = coalesce(a.qid, b.qid)
LEFT JOIN sources AS sb ON sb.run_id = $run_b AND sb.qid = coalesce(a.qid, b.qid)
ORDER BY task_group, task, qid
