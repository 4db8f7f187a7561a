-- The rules the views read instead of naming scorers and splits by hand, written by every
-- build from the Python registry (etl/scoring/registry.py SCORERS, etl/benchmarks.py
-- FULL_SPLITS) before the views are created (etl/views.py apply_views). A change to either
-- changes the code fingerprint, so the database is rebuilt, never updated, under new rules.

CREATE TABLE scorers (
    scorer             VARCHAR,
    title              VARCHAR,
    description        VARCHAR,
    benchmarks         VARCHAR,
    rows_made          VARCHAR,
    question_rows      VARCHAR,
    line_rows          VARCHAR,
    file_kinds         VARCHAR,
    extra              BOOLEAN,
    default_for        VARCHAR,
    default_rank       INTEGER,
    default_needs_rows BOOLEAN,
    score_rule         VARCHAR,
    status_rule        VARCHAR,
    paper_table_for    VARCHAR,
    module             VARCHAR
);
COMMENT ON TABLE scorers IS 'One row per scorer the warehouse knows (question_scores.scorer, line_scores.scorer), from the registry etl/scoring/registry.py: what it is, how its rows are made, and the board rules the leaderboard and paper views read from here: which scorer is a board''s default, which are shown beside it, how a board reads a row and whether the result''s status counts.';
COMMENT ON COLUMN scorers.scorer IS 'Scorer name, as in question_scores.scorer and line_scores.scorer.';
COMMENT ON COLUMN scorers.title IS 'The scorer in a few words (the explorer and the report show it).';
COMMENT ON COLUMN scorers.description IS 'What the scorer computes, in one or two sentences.';
COMMENT ON COLUMN scorers.benchmarks IS 'The results it makes question_scores rows for: all, text (every benchmark but mm_bench) or multimodal (mm_bench).';
COMMENT ON COLUMN scorers.rows_made IS 'How its rows are made, in words (per result at parse time, per line of a run''s results.jsonl, read from the authors'' score files).';
COMMENT ON COLUMN scorers.question_rows IS 'question_scores rows: result (computed for every result of its benchmarks when the file is parsed), authors_file (read from the authors'' files of file_kinds), NULL (none).';
COMMENT ON COLUMN scorers.line_rows IS 'line_scores rows: results_line (computed for every line of a run''s top-level results.jsonl, whatever its benchmark), authors_file (one per line of the authors'' files of file_kinds), NULL (none).';
COMMENT ON COLUMN scorers.file_kinds IS 'For rows read from the authors'' files: the file kinds (files.kind) read, comma-separated; NULL otherwise.';
COMMENT ON COLUMN scorers.extra IS 'True for a scorer shown beside the default on every leaderboard (leaderboard_scorers, the *_all_scorers views), never instead of it.';
COMMENT ON COLUMN scorers.default_for IS 'text or multimodal: the boards (by benchmark kind) whose default this scorer can be; NULL when it is never a default.';
COMMENT ON COLUMN scorers.default_rank IS 'Order among the defaults of one benchmark kind: a run''s default is the lowest rank it has rows of, the highest rank whatever it has (default_needs_rows false).';
COMMENT ON COLUMN scorers.default_needs_rows IS 'True when this default is taken only for a run that has rows of it; false for the last choice, taken regardless.';
COMMENT ON COLUMN scorers.score_rule IS 'How a board reads one row: f1 (question_scores.f1), or authors_unified (the authors'' multimodal unified score: f1 for set rows, the judge verdict for llm_judge rows, 0 for incomplete rows).';
COMMENT ON COLUMN scorers.status_rule IS 'How a board treats the result''s status: as_scored (never consulted, as the authors'' scorers do) or failed_zero (error and incomplete results score 0).';
COMMENT ON COLUMN scorers.paper_table_for IS 'The benchmark whose rows of the paper''s tables (paper_rows, paper_table) this scorer makes; NULL for none.';
COMMENT ON COLUMN scorers.module IS 'The module holding its rules (etl/scoring/...).';

CREATE TABLE benchmarks (
    benchmark   VARCHAR,
    kind        VARCHAR,
    full_split  VARCHAR,
    n_questions INTEGER
);
COMMENT ON TABLE benchmarks IS 'The benchmarks the warehouse knows by name (etl/benchmarks.py): their kind and full split. Any other benchmark directory is data, read as a text benchmark. A current run is on the leaderboard when its split is a full split of this table or any other split named full* (view full_split_runs).';
COMMENT ON COLUMN benchmarks.benchmark IS 'Benchmark: ehr_bench, agent_ehr_bench, mm_bench.';
COMMENT ON COLUMN benchmarks.kind IS 'text or multimodal: which scorers apply to its results and which are its board''s defaults (scorers.benchmarks, scorers.default_for).';
COMMENT ON COLUMN benchmarks.full_split IS 'Its full split: full1800, subset600, full2703.';
COMMENT ON COLUMN benchmarks.n_questions IS 'Questions of the full split.';
