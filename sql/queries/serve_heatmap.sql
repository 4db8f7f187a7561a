-- Model x task cells of one board ($benchmark, $mode): leaderboard_by_task with the
-- model's display name, in task order.
SELECT
    t.run_id, t.model, coalesce(m.display_name, t.model) AS display_name,
    t.task_group, t.task, t.n_questions, t.score
FROM leaderboard_by_task AS t
LEFT JOIN models AS m ON m.model = t.model
WHERE t.benchmark = $benchmark AND t.mode = $mode
ORDER BY t.task_group, t.task, t.run_id
