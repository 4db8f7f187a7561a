-- etl report: the score of each run per task (the heat map) and per task group, by each run's
-- default scorer over all questions (board_cells), with n and both intervals.
SELECT benchmark, mode, board_scorer, level, model, run_id, task_group, task, n_questions,
       score, ci_low, ci_high, ci_naive_low, ci_naive_high, scorer
FROM board_cells
WHERE board_scorer = 'default' AND question_set = 'all' AND level IN ('group', 'task')
ORDER BY benchmark, mode, level, task_group, task, model
