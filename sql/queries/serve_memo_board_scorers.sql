-- The scorers each board (benchmark, mode) can be shown with (the board_scorer values of
-- board_rows besides default: leaderboard_scorers), computed once per warehouse file by the
-- explorer for its scorer menus, without computing every board.
SELECT DISTINCT lr.benchmark, lr.mode, s.scorer
FROM leaderboard_scorers AS s
JOIN leaderboard_runs AS lr ON lr.run_id = s.run_id
ORDER BY lr.benchmark, lr.mode, s.scorer
