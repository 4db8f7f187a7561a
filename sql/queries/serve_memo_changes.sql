-- What moved on the leaderboard since the previous ingest (leaderboard_changes), computed
-- once per warehouse file by the explorer, in the order etl ingest prints it.
SELECT * FROM leaderboard_changes
ORDER BY benchmark, mode, coalesce(rank_after, rank_before), model, run_id
