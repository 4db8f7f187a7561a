-- The group and task cells of every board (board_cells below the overall level; the overall
-- rows are serve_memo_board_rows), computed once per warehouse file by the explorer: the
-- board page's table per task group and the heat map are filters of it.
SELECT * FROM board_cells
WHERE level IN ('group', 'task')
ORDER BY benchmark, mode, board_scorer, question_set, level, task_group, task, rank, run_id
