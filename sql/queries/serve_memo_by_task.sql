-- Model x task cells of every board (leaderboard_by_task) with display names, computed once
-- per warehouse file by the explorer.
SELECT
    t.benchmark, t.mode, t.run_id, t.model, coalesce(m.display_name, t.model) AS display_name,
    t.task_group, t.task, t.n_questions, t.score
FROM leaderboard_by_task AS t
LEFT JOIN models AS m ON m.model = t.model
ORDER BY t.benchmark, t.mode, t.task_group, t.task, t.run_id
