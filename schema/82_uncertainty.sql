-- Uncertainty beyond the paired bootstrap (docs/STATISTICS.md): the paired comparisons'
-- moments (correlation, spread of the differences, their standard error clustered by
-- patient), filled by etl/comparison.py; and the history of the overall boards, one copy
-- per ingest, carried from the previously published file into each new one
-- (etl/board_history.py), which leaderboard_changes reads.

ALTER TABLE paired_comparisons ADD COLUMN correlation DOUBLE;
ALTER TABLE paired_comparisons ADD COLUMN sd_diff DOUBLE;
ALTER TABLE paired_comparisons ADD COLUMN se_diff_clustered DOUBLE;
ALTER TABLE paired_comparisons ADD COLUMN n_clusters BIGINT;

COMMENT ON COLUMN paired_comparisons.correlation IS 'Pearson correlation of the paired per-question scores (score of a, score of b) over the shared questions of the cell; NULL when either run scores every one of them the same (or n_shared = 1). How much pairing gains: the variance of diff is the two variances minus twice their covariance.';
COMMENT ON COLUMN paired_comparisons.sd_diff IS 'Sample standard deviation (n - 1) of the per-question differences d = score_a - score_b over the shared questions; 0 when every d is equal, NULL for n_shared = 1.';
COMMENT ON COLUMN paired_comparisons.se_diff_clustered IS 'Standard error of diff clustered by patient (Miller 2024, no small-sample correction): sqrt(sum over clusters c of (sum over questions i of c of (d_i - diff))^2) / n_shared; a cluster is the question''s patient (results.subject_id of run a, else the qid itself). 0 when it is mathematically 0 (one cluster, or every d equal).';
COMMENT ON COLUMN paired_comparisons.n_clusters IS 'Distinct patients (clusters) among the shared questions of the cell; 1 makes se_diff_clustered 0, a degenerate case, not certainty.';

CREATE TABLE leaderboard_history (
    ingest_seq   INTEGER NOT NULL,
    ingest_id    VARCHAR NOT NULL,
    benchmark    VARCHAR NOT NULL,
    mode         VARCHAR NOT NULL,
    model        VARCHAR NOT NULL,
    run_id       VARCHAR NOT NULL,
    score        DOUBLE,
    rank         BIGINT,
    n_questions  BIGINT
);

COMMENT ON TABLE leaderboard_history IS 'The overall leaderboard (view leaderboard) as each ingest built it, one row per ingest and leaderboard run; each ingest copies the rows of the database it replaces and appends its own, keeping the last 1000 ingests. leaderboard_changes compares the last two.';
COMMENT ON COLUMN leaderboard_history.ingest_seq IS 'Order of the ingest in the history: 1 for the oldest kept, one more per ingest.';
COMMENT ON COLUMN leaderboard_history.ingest_id IS 'The ingest that built the board (ingests.ingest_id).';
COMMENT ON COLUMN leaderboard_history.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN leaderboard_history.mode IS 'Mode of the board (agentic or oneshot).';
COMMENT ON COLUMN leaderboard_history.model IS 'Canonical model key of the run.';
COMMENT ON COLUMN leaderboard_history.run_id IS 'The leaderboard run.';
COMMENT ON COLUMN leaderboard_history.score IS 'Its leaderboard score at that ingest, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard_history.rank IS 'Its competition rank within the board at that ingest.';
COMMENT ON COLUMN leaderboard_history.n_questions IS 'Questions behind the score at that ingest.';

CREATE TABLE question_clusters (
    run_id   VARCHAR NOT NULL,
    qid      VARCHAR NOT NULL,
    cluster  VARCHAR NOT NULL
);

COMMENT ON TABLE question_clusters IS 'The cluster of every question of every run for the clustered standard errors (docs/STATISTICS.md): its patient, else the question itself. Filled after load by etl/clusters.py (sql/load/question_clusters.sql).';
COMMENT ON COLUMN question_clusters.run_id IS 'The run.';
COMMENT ON COLUMN question_clusters.qid IS 'Question id.';
COMMENT ON COLUMN question_clusters.cluster IS '''subject_id <id>'' for the question''s patient (results.subject_id, else subject_id_text; the smallest when its runs disagree), ''qid <qid>'' when the record names none. Questions sharing a value share a patient.';
