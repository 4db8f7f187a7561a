-- Warehouse.failures() / etl failures: the failure profile of the leaderboard runs
-- (failure_profile), narrowed by $benchmark / $mode / $model (NULL: any), the whole run's
-- rows, or with $by_task each task's ($task: that task alone), labels in registry order.
SELECT
    p.benchmark, p.mode, p.model, coalesce(m.display_name, p.model) AS display_name, p.task,
    p.failure, f.title, p.n_results, p.share, p.points_lost, p.score_lost, p.n_questions,
    p.cell_results, p.cell_questions, p.run_id
FROM failure_profile AS p
LEFT JOIN failures AS f ON f.failure = p.failure
LEFT JOIN models AS m ON m.model = p.model
WHERE ($benchmark IS NULL OR p.benchmark = $benchmark)
    AND ($mode IS NULL OR p.mode = $mode)
    AND ($model IS NULL OR p.model = $model)
    AND CASE WHEN $by_task THEN NOT p.all_tasks AND ($task IS NULL OR p.task = $task)
             ELSE p.all_tasks END
ORDER BY p.benchmark, p.mode, p.model, p.task, coalesce(f.position, 1000), p.failure
