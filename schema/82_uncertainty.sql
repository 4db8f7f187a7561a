-- Uncertainty beyond the paired bootstrap (docs/STATISTICS.md): the history of the overall
-- boards, one copy per ingest, carried from the previously published file into each new one
-- (etl/board_history.py), which leaderboard_changes reads; and the cluster (patient) of every
-- question, for the clustered standard errors (etl/clusters.py). The paired comparisons'
-- moments are columns of paired_comparisons (70_comparison.sql).

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
