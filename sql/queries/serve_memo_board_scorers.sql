-- The scorers with per-question rows for the runs of each board (benchmark, mode), computed
-- once per warehouse file by the explorer.
SELECT lr.benchmark, lr.mode, q.scorer, count(DISTINCT q.run_id) AS n_runs, count(*) AS n_rows
FROM question_scores AS q
JOIN leaderboard_runs AS lr ON lr.run_id = q.run_id
GROUP BY lr.benchmark, lr.mode, q.scorer
ORDER BY lr.benchmark, lr.mode, q.scorer
