-- Every board restricted to its shared questions (leaderboard_common), computed once per
-- warehouse file by the explorer.
SELECT * FROM leaderboard_common ORDER BY benchmark, mode, rank, run_id
