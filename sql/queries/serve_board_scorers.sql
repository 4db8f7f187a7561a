-- The scorers with per-question rows for the runs of one board ($benchmark, $mode).
SELECT q.scorer, count(DISTINCT q.run_id) AS n_runs, count(*) AS n_rows
FROM question_scores AS q
JOIN leaderboard_runs AS lr ON lr.run_id = q.run_id
WHERE lr.benchmark = $benchmark AND lr.mode = $mode
GROUP BY q.scorer
ORDER BY q.scorer
