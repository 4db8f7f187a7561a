-- etl report: every board by every scorer it can be shown with (board_rows of the scorer
-- boards over all questions), beside the leaderboards' default scorers.
SELECT benchmark, mode, board_scorer, rank, model, coalesce(display_name, model) AS display_name,
       n_questions, score, ci_low, ci_high, ci_naive_low, ci_naive_high, run_id
FROM board_rows
WHERE board_scorer <> 'default' AND question_set = 'all'
ORDER BY benchmark, mode, board_scorer, rank, model
