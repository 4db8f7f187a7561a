-- The explorer's failures page, once per open file: the labelled calls of the leaderboard
-- runs by kind and tool (failure_kinds), most calls first.
SELECT k.*, coalesce(m.display_name, k.model) AS display_name, f.title
FROM failure_kinds AS k
LEFT JOIN failures AS f ON f.failure = k.failure
LEFT JOIN models AS m ON m.model = k.model
ORDER BY k.benchmark, k.mode, k.n_calls DESC, k.model, k.failure, k.detail, k.tool
