-- The paired statistics of two runs ($run_a, $run_b): model_comparison for two runs of one
-- board, paired_comparisons (both orientations) for any other two leaderboard runs, e.g.
-- agentic against one-shot of one model.
SELECT
    n_shared, score_a, score_b, diff, ci_low, ci_high, p_value, p_adjusted,
    wins_a, wins_b, ties,
    correlation, sd_diff, se_diff_clustered, n_clusters, mde_80, n_needed, not_detectable
FROM model_comparison
WHERE run_a = $run_a AND run_b = $run_b
UNION ALL
SELECT
    n_shared, score_a, score_b, diff, ci_low, ci_high, p_value, p_adjusted,
    wins_a, wins_b, ties,
    correlation, sd_diff, se_diff_clustered, n_clusters, mde_80, n_needed, not_detectable
FROM paired_comparisons_adjusted
WHERE kind = 'mode' AND scope = 'overall' AND run_a = $run_a AND run_b = $run_b
UNION ALL
SELECT
    n_shared, score_b, score_a, -diff, -ci_high, -ci_low, p_value, p_adjusted,
    wins_b, wins_a, ties,
    correlation, sd_diff, se_diff_clustered, n_clusters, mde_80, n_needed, not_detectable
FROM paired_comparisons_adjusted
WHERE kind = 'mode' AND scope = 'overall' AND run_a = $run_b AND run_b = $run_a
