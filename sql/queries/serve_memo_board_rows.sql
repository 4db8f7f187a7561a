-- Every row of every board (board_rows: each board scored by default or by one scorer, over
-- all or only shared questions), computed once per warehouse file by the explorer: its board
-- pages, home page and run pages are filters of it.
SELECT * FROM board_rows
ORDER BY benchmark, mode, board_scorer, question_set, rank, run_id
