-- The rows of every board scored one way ($board: default, or a scorer's name; board_rows,
-- over all and over the shared questions), computed once per warehouse file and board
-- scorer by the explorer: its board pages, home page and run pages are filters of it.
SELECT * FROM board_rows
WHERE board_scorer = $board
ORDER BY benchmark, mode, question_set, rank, run_id
