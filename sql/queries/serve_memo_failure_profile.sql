-- The explorer's failures page (etl/serve/failures.py), once per open file: every leaderboard
-- run's failure profile, the whole run's rows (failure_profile), with each label's words
-- (table failures), labels in registry order.
SELECT p.*, coalesce(m.display_name, p.model) AS display_name, f.title, f.position
FROM failure_profile AS p
LEFT JOIN failures AS f ON f.failure = p.failure
LEFT JOIN models AS m ON m.model = p.model
WHERE p.all_tasks
ORDER BY p.benchmark, p.mode, p.model, coalesce(f.position, 1000), p.failure
