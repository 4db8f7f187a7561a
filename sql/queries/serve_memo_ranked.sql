-- Every board's ranked leaderboard (leaderboard_ranked), computed once per warehouse file by
-- the explorer: it does not depend on the request, and the file does not change under it.
SELECT * FROM leaderboard_ranked ORDER BY benchmark, mode, rank, run_id
