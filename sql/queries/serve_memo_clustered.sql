-- Every leaderboard run's interval clustered by patient (leaderboard_clustered), the
-- explorer's default interval, computed once per warehouse file.
SELECT * FROM leaderboard_clustered ORDER BY benchmark, mode, score DESC, run_id
