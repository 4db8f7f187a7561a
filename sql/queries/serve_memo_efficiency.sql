-- The explorer's failures page, once per open file: what each leaderboard run spent
-- (efficiency, whole run) and whether it is on its board's cost frontier.
SELECT e.*, coalesce(m.display_name, e.model) AS display_name, x.on_frontier, x.beaten_by
FROM efficiency AS e
JOIN efficiency_frontier AS x ON x.run_id = e.run_id
LEFT JOIN models AS m ON m.model = e.model
WHERE e.all_tasks
ORDER BY e.benchmark, e.mode, e.score DESC, e.model
