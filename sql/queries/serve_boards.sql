-- The leaderboards of the explorer's front page: one row per (benchmark, mode) board.
SELECT benchmark, mode, count(*) AS n_runs, max(n_questions) AS max_questions
FROM leaderboard
GROUP BY benchmark, mode
ORDER BY benchmark, mode
