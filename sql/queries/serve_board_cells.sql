-- The group and task cells of every board scored one way ($board; board_cells below the
-- overall level), computed once per warehouse file and board scorer by the explorer: the
-- board page's table per task group and the heat map are filters of it.
SELECT * FROM board_cells
WHERE board_scorer = $board AND level IN ('group', 'task')
ORDER BY benchmark, mode, question_set, level, task_group, task, rank, run_id
