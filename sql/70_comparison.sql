-- Paired comparisons of leaderboard runs, read from the table paired_comparisons (filled at
-- ingest by etl/comparison.py; definitions in docs/STATISTICS.md):
--   paired_comparisons_adjusted  every row with its Holm-adjusted p within its family
--   model_comparison / _by_group / _by_task   two runs of one benchmark and mode, both ways
--   mode_delta_paired            agentic minus one-shot per model, overall / group / task
-- A family (the pairs Holm adjusts together) is one board cell: kind, benchmark, modes,
-- scope, task_group and task; for kind model that is every pair of runs of one board.

CREATE OR REPLACE VIEW paired_comparisons_adjusted AS
WITH ordered AS (
    SELECT
        *,
        row_number() OVER family_by_p AS holm_rank,
        count(*) OVER family AS family_size,
        -- minimum detectable effect: alpha 0.05 two-sided, power 0.8 (z = 1.959964, 0.841621)
        (1.959964 + 0.841621) * sd_diff / sqrt(n_shared) AS mde_80
    FROM paired_comparisons
    WINDOW
        family AS (PARTITION BY kind, benchmark, mode_a, mode_b, scope, task_group, task),
        family_by_p AS (
            PARTITION BY kind, benchmark, mode_a, mode_b, scope, task_group, task
            ORDER BY p_value, run_a, run_b
        )
)
SELECT
    kind, benchmark, mode_a, mode_b, model_a, model_b, run_a, run_b, scope, task_group, task,
    n_shared, score_a, score_b, diff, ci_low, ci_high, p_value,
    -- Holm step-down: the i-th smallest p times (m - i + 1), made monotone, capped at 1.
    least(1.0, max((family_size - holm_rank + 1) * p_value) OVER (
        PARTITION BY kind, benchmark, mode_a, mode_b, scope, task_group, task
        ORDER BY holm_rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    )) AS p_adjusted,
    family_size,
    wins_a, wins_b, ties, n_resamples, seed,
    correlation, sd_diff, se_diff_clustered, n_clusters, mde_80,
    CASE WHEN abs(diff) > 1e-12
        THEN CAST(ceil(power((1.959964 + 0.841621) * sd_diff / abs(diff), 2)) AS BIGINT)
    END AS n_needed,
    CASE WHEN abs(diff) <= 1e-12 THEN true ELSE abs(diff) < mde_80 END AS not_detectable
FROM ordered;

COMMENT ON VIEW paired_comparisons_adjusted IS 'paired_comparisons with p_adjusted: Holm step-down adjustment of p_value across the pairs of one family (kind, benchmark, mode_a, mode_b, scope, task_group, task), i.e. every pair of one board cell. One row per unordered pair (run_a < run_b for kind model).';
COMMENT ON COLUMN paired_comparisons_adjusted.kind IS 'model (two runs of one board) or mode (agentic run a against one-shot run b of one model).';
COMMENT ON COLUMN paired_comparisons_adjusted.benchmark IS 'Benchmark of both runs.';
COMMENT ON COLUMN paired_comparisons_adjusted.mode_a IS 'Mode of run a.';
COMMENT ON COLUMN paired_comparisons_adjusted.mode_b IS 'Mode of run b.';
COMMENT ON COLUMN paired_comparisons_adjusted.model_a IS 'Canonical model key of run a.';
COMMENT ON COLUMN paired_comparisons_adjusted.model_b IS 'Canonical model key of run b.';
COMMENT ON COLUMN paired_comparisons_adjusted.run_a IS 'Run a (run_id).';
COMMENT ON COLUMN paired_comparisons_adjusted.run_b IS 'Run b (run_id).';
COMMENT ON COLUMN paired_comparisons_adjusted.scope IS 'overall, group (one task_group) or task (one task).';
COMMENT ON COLUMN paired_comparisons_adjusted.task_group IS 'Task group of the cell; NULL for scope overall.';
COMMENT ON COLUMN paired_comparisons_adjusted.task IS 'Task of the cell; NULL unless scope is task.';
COMMENT ON COLUMN paired_comparisons_adjusted.n_shared IS 'Questions of the cell both runs answered (the paired sample).';
COMMENT ON COLUMN paired_comparisons_adjusted.score_a IS 'Mean score of run a on the shared questions, a fraction in [0, 1].';
COMMENT ON COLUMN paired_comparisons_adjusted.score_b IS 'Mean score of run b on the shared questions, a fraction in [0, 1].';
COMMENT ON COLUMN paired_comparisons_adjusted.diff IS 'score_a - score_b on the shared questions.';
COMMENT ON COLUMN paired_comparisons_adjusted.ci_low IS 'Lower end of the 95% paired Poisson-bootstrap percentile interval of diff.';
COMMENT ON COLUMN paired_comparisons_adjusted.ci_high IS 'Upper end of the 95% paired Poisson-bootstrap percentile interval of diff.';
COMMENT ON COLUMN paired_comparisons_adjusted.p_value IS 'Exact two-sided sign test p (ties dropped); 1 when all questions tie.';
COMMENT ON COLUMN paired_comparisons_adjusted.p_adjusted IS 'Holm-adjusted p across the pairs of the family (family_size of them).';
COMMENT ON COLUMN paired_comparisons_adjusted.family_size IS 'Pairs adjusted together (m of the Holm procedure).';
COMMENT ON COLUMN paired_comparisons_adjusted.wins_a IS 'Shared questions where run a scored higher.';
COMMENT ON COLUMN paired_comparisons_adjusted.wins_b IS 'Shared questions where run b scored higher.';
COMMENT ON COLUMN paired_comparisons_adjusted.ties IS 'Shared questions with equal scores.';
COMMENT ON COLUMN paired_comparisons_adjusted.n_resamples IS 'Bootstrap resamples B.';
COMMENT ON COLUMN paired_comparisons_adjusted.seed IS 'Seed of the resample weights.';
COMMENT ON COLUMN paired_comparisons_adjusted.correlation IS 'Pearson correlation of the paired per-question scores; NULL when a side is constant.';
COMMENT ON COLUMN paired_comparisons_adjusted.sd_diff IS 'Sample standard deviation of the per-question differences.';
COMMENT ON COLUMN paired_comparisons_adjusted.se_diff_clustered IS 'Standard error of diff clustered by patient (Miller 2024, no small-sample correction).';
COMMENT ON COLUMN paired_comparisons_adjusted.n_clusters IS 'Distinct patients among the shared questions; 1 makes se_diff_clustered 0 (degenerate).';
COMMENT ON COLUMN paired_comparisons_adjusted.mde_80 IS 'Minimum detectable effect (alpha 0.05 two-sided, power 0.8): (1.959964 + 0.841621) sd_diff / sqrt(n_shared).';
COMMENT ON COLUMN paired_comparisons_adjusted.n_needed IS 'Shared questions a true difference of |diff| would need for power 0.8 at alpha 0.05: ceil(((1.959964 + 0.841621) sd_diff / |diff|)^2); NULL when diff = 0 (|diff| <= 1e-12).';
COMMENT ON COLUMN paired_comparisons_adjusted.not_detectable IS 'True when |diff| < mde_80 (or diff = 0): a difference this small is not detectable with this n.';

-- Both orientations of a model pair: the stored row (a, b) and its mirror (b, a). The
-- mirrored interval is exact: the quantiles of -x are minus the mirrored quantiles of x.
CREATE OR REPLACE VIEW model_comparison_cells AS
SELECT
    benchmark, mode_a AS mode, scope, task_group, task, model_a, model_b, run_a, run_b,
    n_shared, score_a, score_b, diff, ci_low, ci_high, p_value, p_adjusted,
    wins_a, wins_b, ties, family_size,
    correlation, sd_diff, se_diff_clustered, n_clusters, mde_80, n_needed, not_detectable
FROM paired_comparisons_adjusted
WHERE kind = 'model'
UNION ALL
SELECT
    benchmark, mode_a AS mode, scope, task_group, task, model_b, model_a, run_b, run_a,
    n_shared, score_b, score_a, -diff, -ci_high, -ci_low, p_value, p_adjusted,
    wins_b, wins_a, ties, family_size,
    correlation, sd_diff, se_diff_clustered, n_clusters, mde_80, n_needed, not_detectable
FROM paired_comparisons_adjusted
WHERE kind = 'model';

COMMENT ON VIEW model_comparison_cells IS 'Every ordered pair (A, B) of leaderboard runs of one benchmark and mode, per cell (scope overall, group, task), on the questions both answered; each unordered pair appears twice, once per orientation (diff, interval and wins mirrored). Base of model_comparison, model_comparison_by_group, model_comparison_by_task.';
COMMENT ON COLUMN model_comparison_cells.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN model_comparison_cells.mode IS 'Mode of the board (agentic or oneshot).';
COMMENT ON COLUMN model_comparison_cells.scope IS 'overall, group or task.';
COMMENT ON COLUMN model_comparison_cells.task_group IS 'Task group of the cell; NULL for scope overall.';
COMMENT ON COLUMN model_comparison_cells.task IS 'Task of the cell; NULL unless scope is task.';
COMMENT ON COLUMN model_comparison_cells.model_a IS 'Model A (canonical key).';
COMMENT ON COLUMN model_comparison_cells.model_b IS 'Model B (canonical key).';
COMMENT ON COLUMN model_comparison_cells.run_a IS 'Run of model A.';
COMMENT ON COLUMN model_comparison_cells.run_b IS 'Run of model B.';
COMMENT ON COLUMN model_comparison_cells.n_shared IS 'Questions of the cell both runs answered.';
COMMENT ON COLUMN model_comparison_cells.score_a IS 'Mean score of A on the shared questions.';
COMMENT ON COLUMN model_comparison_cells.score_b IS 'Mean score of B on the shared questions.';
COMMENT ON COLUMN model_comparison_cells.diff IS 'score_a - score_b.';
COMMENT ON COLUMN model_comparison_cells.ci_low IS 'Lower end of the 95% paired bootstrap interval of diff.';
COMMENT ON COLUMN model_comparison_cells.ci_high IS 'Upper end of the 95% paired bootstrap interval of diff.';
COMMENT ON COLUMN model_comparison_cells.p_value IS 'Exact two-sided sign test p.';
COMMENT ON COLUMN model_comparison_cells.p_adjusted IS 'Holm-adjusted p across the pairs of the board cell.';
COMMENT ON COLUMN model_comparison_cells.wins_a IS 'Shared questions where A scored higher.';
COMMENT ON COLUMN model_comparison_cells.wins_b IS 'Shared questions where B scored higher.';
COMMENT ON COLUMN model_comparison_cells.ties IS 'Shared questions with equal scores.';
COMMENT ON COLUMN model_comparison_cells.family_size IS 'Unordered pairs of the board cell (Holm m).';
COMMENT ON COLUMN model_comparison_cells.correlation IS 'Pearson correlation of the paired per-question scores of A and B; NULL when one of them scores every shared question the same.';
COMMENT ON COLUMN model_comparison_cells.sd_diff IS 'Sample standard deviation (n - 1) of the per-question differences score_A - score_B.';
COMMENT ON COLUMN model_comparison_cells.se_diff_clustered IS 'Standard error of diff clustered by patient: sqrt(sum over patients of (sum of their d_i - diff)^2) / n_shared (Miller 2024, no small-sample correction); 0 for one patient.';
COMMENT ON COLUMN model_comparison_cells.n_clusters IS 'Distinct patients among the shared questions; 1 makes se_diff_clustered 0, a degenerate case.';
COMMENT ON COLUMN model_comparison_cells.mde_80 IS 'Minimum detectable effect, alpha 0.05 two-sided and power 0.8: (1.959964 + 0.841621) sd_diff / sqrt(n_shared).';
COMMENT ON COLUMN model_comparison_cells.n_needed IS 'Shared questions needed to detect a true difference of |diff| (power 0.8, alpha 0.05): ceil(((1.959964 + 0.841621) sd_diff / |diff|)^2); NULL when diff = 0.';
COMMENT ON COLUMN model_comparison_cells.not_detectable IS 'True when |diff| < mde_80 or diff = 0: not detectable with this n.';

CREATE OR REPLACE VIEW model_comparison AS
SELECT
    benchmark, mode, model_a, model_b, n_shared, score_a, score_b, diff, ci_low, ci_high,
    p_value, p_adjusted, wins_a, wins_b, ties,
    p_adjusted < 0.05 AS significant,
    run_a, run_b,
    correlation, sd_diff, se_diff_clustered, n_clusters, mde_80, n_needed, not_detectable
FROM model_comparison_cells
WHERE scope = 'overall';

COMMENT ON VIEW model_comparison IS 'Paired comparison of every ordered pair of leaderboard runs (A, B) of one benchmark and mode on the questions both answered: diff = mean per-question score difference, 95% Poisson-bootstrap percentile interval (B = n_resamples of paired_comparisons, fixed seed), exact two-sided sign test p, Holm-adjusted across the pairs of the board. Both orientations are listed.';
COMMENT ON COLUMN model_comparison.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN model_comparison.mode IS 'Mode of the board.';
COMMENT ON COLUMN model_comparison.model_a IS 'Model A (canonical key).';
COMMENT ON COLUMN model_comparison.model_b IS 'Model B (canonical key).';
COMMENT ON COLUMN model_comparison.n_shared IS 'Questions both runs answered.';
COMMENT ON COLUMN model_comparison.score_a IS 'Mean score of A on the shared questions (may differ from its leaderboard score when coverage differs).';
COMMENT ON COLUMN model_comparison.score_b IS 'Mean score of B on the shared questions.';
COMMENT ON COLUMN model_comparison.diff IS 'score_a - score_b.';
COMMENT ON COLUMN model_comparison.ci_low IS 'Lower end of the 95% paired bootstrap interval of diff.';
COMMENT ON COLUMN model_comparison.ci_high IS 'Upper end of the 95% paired bootstrap interval of diff.';
COMMENT ON COLUMN model_comparison.p_value IS 'Exact two-sided sign test p (ties dropped).';
COMMENT ON COLUMN model_comparison.p_adjusted IS 'Holm-adjusted p across the pairs of the board.';
COMMENT ON COLUMN model_comparison.wins_a IS 'Shared questions where A scored higher.';
COMMENT ON COLUMN model_comparison.wins_b IS 'Shared questions where B scored higher.';
COMMENT ON COLUMN model_comparison.ties IS 'Shared questions with equal scores.';
COMMENT ON COLUMN model_comparison.significant IS 'p_adjusted < 0.05.';
COMMENT ON COLUMN model_comparison.run_a IS 'Run of model A.';
COMMENT ON COLUMN model_comparison.run_b IS 'Run of model B.';
COMMENT ON COLUMN model_comparison.correlation IS 'Pearson correlation of the paired per-question scores of A and B; NULL when one of them scores every shared question the same.';
COMMENT ON COLUMN model_comparison.sd_diff IS 'Sample standard deviation (n - 1) of the per-question differences score_A - score_B.';
COMMENT ON COLUMN model_comparison.se_diff_clustered IS 'Standard error of diff clustered by patient: sqrt(sum over patients of (sum of their d_i - diff)^2) / n_shared (Miller 2024, no small-sample correction); 0 for one patient.';
COMMENT ON COLUMN model_comparison.n_clusters IS 'Distinct patients among the shared questions; 1 makes se_diff_clustered 0, a degenerate case.';
COMMENT ON COLUMN model_comparison.mde_80 IS 'Minimum detectable effect, alpha 0.05 two-sided and power 0.8: (1.959964 + 0.841621) sd_diff / sqrt(n_shared).';
COMMENT ON COLUMN model_comparison.n_needed IS 'Shared questions needed to detect a true difference of |diff| (power 0.8, alpha 0.05): ceil(((1.959964 + 0.841621) sd_diff / |diff|)^2); NULL when diff = 0.';
COMMENT ON COLUMN model_comparison.not_detectable IS 'True when |diff| < mde_80 or diff = 0: not detectable with this n.';

CREATE OR REPLACE VIEW model_comparison_by_group AS
SELECT
    benchmark, mode, task_group, model_a, model_b, n_shared, score_a, score_b, diff,
    ci_low, ci_high, p_value, p_adjusted, wins_a, wins_b, ties,
    n_shared < 30 AS small_n,
    run_a, run_b,
    correlation, sd_diff, se_diff_clustered, n_clusters, mde_80, n_needed, not_detectable
FROM model_comparison_cells
WHERE scope = 'group';

COMMENT ON VIEW model_comparison_by_group IS 'model_comparison per task group: the same statistics on the shared questions of one task_group; Holm across the pairs of the board within the group. small_n flags cells with fewer than 30 shared questions.';
COMMENT ON COLUMN model_comparison_by_group.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN model_comparison_by_group.mode IS 'Mode of the board.';
COMMENT ON COLUMN model_comparison_by_group.task_group IS 'Task group (run A''s label of the question).';
COMMENT ON COLUMN model_comparison_by_group.model_a IS 'Model A.';
COMMENT ON COLUMN model_comparison_by_group.model_b IS 'Model B.';
COMMENT ON COLUMN model_comparison_by_group.n_shared IS 'Questions of the group both runs answered.';
COMMENT ON COLUMN model_comparison_by_group.score_a IS 'Mean score of A on them.';
COMMENT ON COLUMN model_comparison_by_group.score_b IS 'Mean score of B on them.';
COMMENT ON COLUMN model_comparison_by_group.diff IS 'score_a - score_b.';
COMMENT ON COLUMN model_comparison_by_group.ci_low IS 'Lower end of the 95% paired bootstrap interval.';
COMMENT ON COLUMN model_comparison_by_group.ci_high IS 'Upper end of the 95% paired bootstrap interval.';
COMMENT ON COLUMN model_comparison_by_group.p_value IS 'Exact two-sided sign test p.';
COMMENT ON COLUMN model_comparison_by_group.p_adjusted IS 'Holm-adjusted p across the pairs of the board in this group.';
COMMENT ON COLUMN model_comparison_by_group.wins_a IS 'Questions where A scored higher.';
COMMENT ON COLUMN model_comparison_by_group.wins_b IS 'Questions where B scored higher.';
COMMENT ON COLUMN model_comparison_by_group.ties IS 'Questions with equal scores.';
COMMENT ON COLUMN model_comparison_by_group.small_n IS 'n_shared < 30: the interval and test are unreliable.';
COMMENT ON COLUMN model_comparison_by_group.run_a IS 'Run of model A.';
COMMENT ON COLUMN model_comparison_by_group.run_b IS 'Run of model B.';
COMMENT ON COLUMN model_comparison_by_group.correlation IS 'Pearson correlation of the paired per-question scores of A and B; NULL when one of them scores every shared question the same.';
COMMENT ON COLUMN model_comparison_by_group.sd_diff IS 'Sample standard deviation (n - 1) of the per-question differences score_A - score_B.';
COMMENT ON COLUMN model_comparison_by_group.se_diff_clustered IS 'Standard error of diff clustered by patient: sqrt(sum over patients of (sum of their d_i - diff)^2) / n_shared (Miller 2024, no small-sample correction); 0 for one patient.';
COMMENT ON COLUMN model_comparison_by_group.n_clusters IS 'Distinct patients among the shared questions; 1 makes se_diff_clustered 0, a degenerate case.';
COMMENT ON COLUMN model_comparison_by_group.mde_80 IS 'Minimum detectable effect, alpha 0.05 two-sided and power 0.8: (1.959964 + 0.841621) sd_diff / sqrt(n_shared).';
COMMENT ON COLUMN model_comparison_by_group.n_needed IS 'Shared questions needed to detect a true difference of |diff| (power 0.8, alpha 0.05): ceil(((1.959964 + 0.841621) sd_diff / |diff|)^2); NULL when diff = 0.';
COMMENT ON COLUMN model_comparison_by_group.not_detectable IS 'True when |diff| < mde_80 or diff = 0: not detectable with this n.';

CREATE OR REPLACE VIEW model_comparison_by_task AS
WITH tasks AS (
    -- The Benjamini-Hochberg family: the tasks of one pair of runs on one board.
    SELECT
        *,
        row_number() OVER (PARTITION BY benchmark, mode, run_a, run_b
                           ORDER BY p_value, task_group, task) AS bh_rank,
        count(*) OVER (PARTITION BY benchmark, mode, run_a, run_b) AS bh_family
    FROM model_comparison_cells
    WHERE scope = 'task'
)
SELECT
    benchmark, mode, task_group, task, model_a, model_b, n_shared, score_a, score_b, diff,
    ci_low, ci_high, p_value, p_adjusted, wins_a, wins_b, ties,
    n_shared < 30 AS small_n,
    run_a, run_b,
    correlation, sd_diff, se_diff_clustered, n_clusters, mde_80, n_needed, not_detectable,
    -- Step-up: the i-th smallest p times m / i, made monotone from the largest down, capped.
    least(1.0, min(bh_family * p_value / bh_rank) OVER (
        PARTITION BY benchmark, mode, run_a, run_b
        ORDER BY bh_rank DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    )) AS p_bh
FROM tasks;

COMMENT ON VIEW model_comparison_by_task IS 'model_comparison per task: the same statistics on the shared questions of one task; Holm across the pairs of the board within the task (p_adjusted), Benjamini-Hochberg across the tasks of the pair (p_bh). small_n flags cells with fewer than 30 shared questions.';
COMMENT ON COLUMN model_comparison_by_task.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN model_comparison_by_task.mode IS 'Mode of the board.';
COMMENT ON COLUMN model_comparison_by_task.task_group IS 'Task group of the task.';
COMMENT ON COLUMN model_comparison_by_task.task IS 'Task (run A''s label of the question).';
COMMENT ON COLUMN model_comparison_by_task.model_a IS 'Model A.';
COMMENT ON COLUMN model_comparison_by_task.model_b IS 'Model B.';
COMMENT ON COLUMN model_comparison_by_task.n_shared IS 'Questions of the task both runs answered.';
COMMENT ON COLUMN model_comparison_by_task.score_a IS 'Mean score of A on them.';
COMMENT ON COLUMN model_comparison_by_task.score_b IS 'Mean score of B on them.';
COMMENT ON COLUMN model_comparison_by_task.diff IS 'score_a - score_b.';
COMMENT ON COLUMN model_comparison_by_task.ci_low IS 'Lower end of the 95% paired bootstrap interval.';
COMMENT ON COLUMN model_comparison_by_task.ci_high IS 'Upper end of the 95% paired bootstrap interval.';
COMMENT ON COLUMN model_comparison_by_task.p_value IS 'Exact two-sided sign test p.';
COMMENT ON COLUMN model_comparison_by_task.p_adjusted IS 'Holm-adjusted p across the pairs of the board in this task.';
COMMENT ON COLUMN model_comparison_by_task.wins_a IS 'Questions where A scored higher.';
COMMENT ON COLUMN model_comparison_by_task.wins_b IS 'Questions where B scored higher.';
COMMENT ON COLUMN model_comparison_by_task.ties IS 'Questions with equal scores.';
COMMENT ON COLUMN model_comparison_by_task.small_n IS 'n_shared < 30: the interval and test are unreliable.';
COMMENT ON COLUMN model_comparison_by_task.run_a IS 'Run of model A.';
COMMENT ON COLUMN model_comparison_by_task.run_b IS 'Run of model B.';
COMMENT ON COLUMN model_comparison_by_task.correlation IS 'Pearson correlation of the paired per-question scores of A and B; NULL when one of them scores every shared question the same.';
COMMENT ON COLUMN model_comparison_by_task.sd_diff IS 'Sample standard deviation (n - 1) of the per-question differences score_A - score_B.';
COMMENT ON COLUMN model_comparison_by_task.se_diff_clustered IS 'Standard error of diff clustered by patient: sqrt(sum over patients of (sum of their d_i - diff)^2) / n_shared (Miller 2024, no small-sample correction); 0 for one patient.';
COMMENT ON COLUMN model_comparison_by_task.n_clusters IS 'Distinct patients among the shared questions; 1 makes se_diff_clustered 0, a degenerate case.';
COMMENT ON COLUMN model_comparison_by_task.mde_80 IS 'Minimum detectable effect, alpha 0.05 two-sided and power 0.8: (1.959964 + 0.841621) sd_diff / sqrt(n_shared).';
COMMENT ON COLUMN model_comparison_by_task.n_needed IS 'Shared questions needed to detect a true difference of |diff| (power 0.8, alpha 0.05): ceil(((1.959964 + 0.841621) sd_diff / |diff|)^2); NULL when diff = 0.';
COMMENT ON COLUMN model_comparison_by_task.not_detectable IS 'True when |diff| < mde_80 or diff = 0: not detectable with this n.';
COMMENT ON COLUMN model_comparison_by_task.p_bh IS 'Benjamini-Hochberg adjusted p across the tasks of this pair of runs on the board (false discovery rate; beside p_adjusted, Holm across the pairs within the task): the i-th smallest of the m task p-values becomes min over j >= i of min(1, m p_(j) / j).';

CREATE OR REPLACE VIEW mode_delta_paired AS
SELECT
    benchmark,
    model_a AS model,
    scope,
    task_group,
    task,
    n_shared,
    score_a AS agentic_score,
    score_b AS oneshot_score,
    diff AS delta,
    ci_low,
    ci_high,
    p_value,
    p_adjusted,
    wins_a AS agentic_wins,
    wins_b AS oneshot_wins,
    ties,
    n_shared < 30 AS small_n,
    run_a AS agentic_run,
    run_b AS oneshot_run,
    correlation, sd_diff, se_diff_clustered, n_clusters, mde_80, n_needed, not_detectable
FROM paired_comparisons_adjusted
WHERE kind = 'mode';

COMMENT ON VIEW mode_delta_paired IS 'Agentic minus one-shot per benchmark and model, paired on the questions both runs answered, overall (scope overall), per task group (group) and per task (task): delta with a 95% Poisson-bootstrap interval, exact sign test p, Holm-adjusted across the models of one benchmark and cell, and n. small_n flags cells with fewer than 30 shared questions. The unpaired version is mode_delta.';
COMMENT ON COLUMN mode_delta_paired.benchmark IS 'Benchmark of both runs.';
COMMENT ON COLUMN mode_delta_paired.model IS 'Canonical model key.';
COMMENT ON COLUMN mode_delta_paired.scope IS 'overall, group or task.';
COMMENT ON COLUMN mode_delta_paired.task_group IS 'Task group of the cell; NULL for scope overall.';
COMMENT ON COLUMN mode_delta_paired.task IS 'Task of the cell; NULL unless scope is task.';
COMMENT ON COLUMN mode_delta_paired.n_shared IS 'Questions of the cell both runs answered.';
COMMENT ON COLUMN mode_delta_paired.agentic_score IS 'Mean agentic score on the shared questions.';
COMMENT ON COLUMN mode_delta_paired.oneshot_score IS 'Mean one-shot score on the shared questions.';
COMMENT ON COLUMN mode_delta_paired.delta IS 'agentic_score - oneshot_score.';
COMMENT ON COLUMN mode_delta_paired.ci_low IS 'Lower end of the 95% paired bootstrap interval of delta.';
COMMENT ON COLUMN mode_delta_paired.ci_high IS 'Upper end of the 95% paired bootstrap interval of delta.';
COMMENT ON COLUMN mode_delta_paired.p_value IS 'Exact two-sided sign test p.';
COMMENT ON COLUMN mode_delta_paired.p_adjusted IS 'Holm-adjusted p across the models of the benchmark and cell.';
COMMENT ON COLUMN mode_delta_paired.agentic_wins IS 'Shared questions where the agentic run scored higher.';
COMMENT ON COLUMN mode_delta_paired.oneshot_wins IS 'Shared questions where the one-shot run scored higher.';
COMMENT ON COLUMN mode_delta_paired.ties IS 'Shared questions with equal scores.';
COMMENT ON COLUMN mode_delta_paired.small_n IS 'n_shared < 30: the interval and test are unreliable.';
COMMENT ON COLUMN mode_delta_paired.agentic_run IS 'The agentic run.';
COMMENT ON COLUMN mode_delta_paired.oneshot_run IS 'The one-shot run.';
COMMENT ON COLUMN mode_delta_paired.correlation IS 'Pearson correlation of the paired per-question scores of the agentic and one-shot runs; NULL when one of them scores every shared question the same.';
COMMENT ON COLUMN mode_delta_paired.sd_diff IS 'Sample standard deviation (n - 1) of the per-question differences agentic - one-shot.';
COMMENT ON COLUMN mode_delta_paired.se_diff_clustered IS 'Standard error of diff clustered by patient: sqrt(sum over patients of (sum of their d_i - delta)^2) / n_shared (Miller 2024, no small-sample correction); 0 for one patient.';
COMMENT ON COLUMN mode_delta_paired.n_clusters IS 'Distinct patients among the shared questions; 1 makes se_diff_clustered 0, a degenerate case.';
COMMENT ON COLUMN mode_delta_paired.mde_80 IS 'Minimum detectable effect, alpha 0.05 two-sided and power 0.8: (1.959964 + 0.841621) sd_diff / sqrt(n_shared).';
COMMENT ON COLUMN mode_delta_paired.n_needed IS 'Shared questions needed to detect a true difference of |delta| (power 0.8, alpha 0.05): ceil(((1.959964 + 0.841621) sd_diff / |delta|)^2); NULL when delta = 0.';
COMMENT ON COLUMN mode_delta_paired.not_detectable IS 'True when |delta| < mde_80 or delta = 0: not detectable with this n.';
