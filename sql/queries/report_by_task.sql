-- etl report: the score of each model per task (the heatmap).
SELECT benchmark, mode, model, task, task_group, n_questions, score
FROM leaderboard_by_task
ORDER BY benchmark, mode, task_group, task, model
