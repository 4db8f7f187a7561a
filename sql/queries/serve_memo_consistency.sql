-- The explorer's failures page, once per open file: the agreement of the attempts of
-- leaderboard runs with several per question (attempt_consistency, whole run).
SELECT c.*, coalesce(m.display_name, c.model) AS display_name
FROM attempt_consistency AS c
LEFT JOIN models AS m ON m.model = c.model
WHERE c.all_tasks
ORDER BY c.benchmark, c.mode, c.model
