-- etl report: the leaderboards, one row per run of each board. The whisker is the interval
-- clustered by patient (leaderboard_clustered); the leaderboard's normal interval goes into
-- the tooltip as ci_naive_*.
SELECT
    r.benchmark, r.mode, r.model, coalesce(r.display_name, r.model) AS display_name,
    r.n_questions, r.score, c.ci_low, c.ci_high, r.ci_low AS ci_naive_low,
    r.ci_high AS ci_naive_high, c.n_clusters, c.design_effect, c.single_cluster, r.rank,
    r.split, r.rank_group, r.present, r.expected, r.coverage, r.low_coverage,
    r.score_source AS scorer, r.run_id
FROM leaderboard_ranked AS r
JOIN leaderboard AS l ON l.run_id = r.run_id
LEFT JOIN leaderboard_clustered AS c ON c.run_id = r.run_id
ORDER BY r.benchmark, r.mode, r.rank, r.model
