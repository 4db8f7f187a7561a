-- Warehouse.efficiency() / etl failures --show efficiency: what each leaderboard run spent
-- (efficiency) with whether it is on its board's cost frontier (efficiency_frontier),
-- narrowed by $benchmark / $mode / $model; the whole run's rows, or with $by_task each
-- task's ($task: that task alone).
SELECT
    e.benchmark, e.mode, e.model, e.task, e.n_questions, e.n_results, e.score, e.n_calls,
    e.calls_per_question, e.calls_per_attempt, e.steps_per_question, e.chars_per_question,
    e.calls_per_point, e.steps_per_point, e.chars_per_point, e.n_results_with_usage,
    e.total_tokens, e.tokens_per_question, e.tokens_per_point,
    x.on_frontier, x.beaten_by, e.run_id
FROM efficiency AS e
LEFT JOIN efficiency_frontier AS x ON x.run_id = e.run_id AND e.all_tasks
WHERE ($benchmark IS NULL OR e.benchmark = $benchmark)
    AND ($mode IS NULL OR e.mode = $mode)
    AND ($model IS NULL OR e.model = $model)
    AND CASE WHEN $by_task THEN NOT e.all_tasks AND ($task IS NULL OR e.task = $task)
             ELSE e.all_tasks END
ORDER BY e.benchmark, e.mode, e.task, e.score DESC, e.model
