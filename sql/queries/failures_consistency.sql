-- Warehouse.consistency() / etl failures --show consistency: agreement of the attempts of
-- the leaderboard runs with several per question (attempt_consistency), narrowed by
-- $benchmark / $mode / $model; the whole run's rows, or with $by_task each task's.
SELECT benchmark, mode, model, task, n_questions, n_attempts, outcome_agreement,
       answer_agreement, tool_sequence_agreement, run_id
FROM attempt_consistency
WHERE ($benchmark IS NULL OR benchmark = $benchmark)
    AND ($mode IS NULL OR mode = $mode)
    AND ($model IS NULL OR model = $model)
    AND CASE WHEN $by_task THEN NOT all_tasks AND ($task IS NULL OR task = $task)
             ELSE all_tasks END
ORDER BY benchmark, mode, model, task
