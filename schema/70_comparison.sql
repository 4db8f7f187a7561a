-- Paired comparisons, precomputed at ingest (etl/comparison.py, after the views exist)
-- because a bootstrap is too slow to run inside a view. The views of sql/70_comparison.sql
-- read this table; docs/STATISTICS.md defines every number.

CREATE TABLE paired_comparisons (
    kind          VARCHAR NOT NULL,
    benchmark     VARCHAR NOT NULL,
    mode_a        VARCHAR NOT NULL,
    mode_b        VARCHAR NOT NULL,
    model_a       VARCHAR NOT NULL,
    model_b       VARCHAR NOT NULL,
    run_a         VARCHAR NOT NULL,
    run_b         VARCHAR NOT NULL,
    scope         VARCHAR NOT NULL,
    task_group    VARCHAR,
    task          VARCHAR,
    n_shared      BIGINT NOT NULL,
    score_a       DOUBLE,
    score_b       DOUBLE,
    diff          DOUBLE,
    ci_low        DOUBLE,
    ci_high       DOUBLE,
    p_value       DOUBLE,
    wins_a        BIGINT NOT NULL,
    wins_b        BIGINT NOT NULL,
    ties          BIGINT NOT NULL,
    n_resamples   INTEGER NOT NULL,
    seed          INTEGER NOT NULL,
    -- uncertainty beyond the paired bootstrap (docs/STATISTICS.md): the pair's moments
    -- (correlation, spread of the differences, their standard error clustered by patient)
    correlation       DOUBLE,
    sd_diff           DOUBLE,
    se_diff_clustered DOUBLE,
    n_clusters        BIGINT
);

COMMENT ON TABLE paired_comparisons IS 'One row per pair of leaderboard runs and cell (overall, task group, task), computed on the questions both runs answered: kind model = two runs of one benchmark and mode (run_a < run_b), kind mode = the agentic (a) and one-shot (b) run of one benchmark and model. diff = mean(score_a - score_b); ci_low/ci_high = 95% Poisson-bootstrap percentile interval; p_value = exact two-sided sign test. Filled by etl/comparison.py at ingest; definitions in docs/STATISTICS.md.';
COMMENT ON COLUMN paired_comparisons.kind IS 'model (two runs of one benchmark and mode) or mode (agentic run a against one-shot run b of one model).';
COMMENT ON COLUMN paired_comparisons.benchmark IS 'Benchmark of both runs.';
COMMENT ON COLUMN paired_comparisons.mode_a IS 'Mode of run a (agentic or oneshot).';
COMMENT ON COLUMN paired_comparisons.mode_b IS 'Mode of run b (agentic or oneshot).';
COMMENT ON COLUMN paired_comparisons.model_a IS 'Canonical model key of run a.';
COMMENT ON COLUMN paired_comparisons.model_b IS 'Canonical model key of run b.';
COMMENT ON COLUMN paired_comparisons.run_a IS 'Leaderboard run a (run_id).';
COMMENT ON COLUMN paired_comparisons.run_b IS 'Leaderboard run b (run_id).';
COMMENT ON COLUMN paired_comparisons.scope IS 'overall (all shared questions), group (one task_group) or task (one task).';
COMMENT ON COLUMN paired_comparisons.task_group IS 'Task group of the cell (run a''s label of the question); NULL for scope overall.';
COMMENT ON COLUMN paired_comparisons.task IS 'Task of the cell (run a''s label of the question); NULL for scopes overall and group.';
COMMENT ON COLUMN paired_comparisons.n_shared IS 'Questions of the cell present in both runs: the paired sample size.';
COMMENT ON COLUMN paired_comparisons.score_a IS 'Mean per-question score of run a over the shared questions, a fraction in [0, 1].';
COMMENT ON COLUMN paired_comparisons.score_b IS 'Mean per-question score of run b over the shared questions, a fraction in [0, 1].';
COMMENT ON COLUMN paired_comparisons.diff IS 'score_a - score_b = mean of the per-question differences (fraction points).';
COMMENT ON COLUMN paired_comparisons.ci_low IS 'Lower end of the 95% paired Poisson-bootstrap percentile interval of diff (docs/STATISTICS.md).';
COMMENT ON COLUMN paired_comparisons.ci_high IS 'Upper end of the 95% paired Poisson-bootstrap percentile interval of diff.';
COMMENT ON COLUMN paired_comparisons.p_value IS 'Exact two-sided sign test on the non-tied questions: min(1, 2 P(X <= min(wins_a, wins_b))), X ~ Binomial(wins_a + wins_b, 1/2); 1 when every question ties.';
COMMENT ON COLUMN paired_comparisons.wins_a IS 'Shared questions where run a scored higher (by more than 1e-12).';
COMMENT ON COLUMN paired_comparisons.wins_b IS 'Shared questions where run b scored higher (by more than 1e-12).';
COMMENT ON COLUMN paired_comparisons.ties IS 'Shared questions where both scored the same (within 1e-12).';
COMMENT ON COLUMN paired_comparisons.n_resamples IS 'Bootstrap resamples B behind the interval.';
COMMENT ON COLUMN paired_comparisons.seed IS 'Seed of the deterministic hash that draws the resample weights.';
COMMENT ON COLUMN paired_comparisons.correlation IS 'Pearson correlation of the paired per-question scores (score of a, score of b) over the shared questions of the cell; NULL when either run scores every one of them the same (or n_shared = 1). How much pairing gains: the variance of diff is the two variances minus twice their covariance.';
COMMENT ON COLUMN paired_comparisons.sd_diff IS 'Sample standard deviation (n - 1) of the per-question differences d = score_a - score_b over the shared questions; 0 when every d is equal, NULL for n_shared = 1.';
COMMENT ON COLUMN paired_comparisons.se_diff_clustered IS 'Standard error of diff clustered by patient (Miller 2024, no small-sample correction): sqrt(sum over clusters c of (sum over questions i of c of (d_i - diff))^2) / n_shared; a cluster is the question''s patient (results.subject_id of run a, else the qid itself). 0 when it is mathematically 0 (one cluster, or every d equal).';
COMMENT ON COLUMN paired_comparisons.n_clusters IS 'Distinct patients (clusters) among the shared questions of the cell; 1 makes se_diff_clustered 0, a degenerate case, not certainty.';
