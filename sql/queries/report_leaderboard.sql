-- etl report: the leaderboards, one row per run of each board (board_rows of the default
-- board over all questions: n, score, both intervals, rank, rank group, coverage and the
-- marks' columns). The whisker is the default interval (clustered by patient); the naive one
-- goes into the tooltip.
SELECT
    benchmark, mode, model, coalesce(display_name, model) AS display_name, n_questions, score,
    ci_low, ci_high, ci_naive_low, ci_naive_high, n_clusters, design_effect, single_cluster,
    rank, split, rank_group, present, expected, coverage, most_present, low_coverage, scorer,
    usual_scorer, other_scorer, scored_elsewhere, run_id
FROM board_rows
WHERE board_scorer = 'default' AND question_set = 'all'
ORDER BY benchmark, mode, rank, model
