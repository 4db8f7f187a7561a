-- The paired statistics of two runs ($run_a, $run_b) over all their shared questions
-- (scope overall) and per task group (scope group), A's orientation: model_comparison_cells
-- for two runs of one board, paired_comparisons_adjusted (kind mode, either orientation) for
-- agentic against one-shot of one model. Empty for runs the ingest did not pair.
SELECT scope, task_group, n_shared, score_a, score_b, diff, ci_low, ci_high, p_value,
       p_adjusted, wins_a, wins_b, ties, n_shared < 30 AS small_n
FROM model_comparison_cells
WHERE run_a = $run_a AND run_b = $run_b AND scope IN ('overall', 'group')
UNION ALL
SELECT scope, task_group, n_shared, score_a, score_b, diff, ci_low, ci_high, p_value,
       p_adjusted, wins_a, wins_b, ties, n_shared < 30
FROM paired_comparisons_adjusted
WHERE kind = 'mode' AND scope IN ('overall', 'group') AND run_a = $run_a AND run_b = $run_b
UNION ALL
SELECT scope, task_group, n_shared, score_b, score_a, -diff, -ci_high, -ci_low, p_value,
       p_adjusted, wins_b, wins_a, ties, n_shared < 30
FROM paired_comparisons_adjusted
WHERE kind = 'mode' AND scope IN ('overall', 'group') AND run_a = $run_b AND run_b = $run_a
ORDER BY scope = 'group', task_group
