-- full_split_runs: the current runs of a full split, the runs the leaderboard ranks and an
-- archived run falls back to (archive_match). The one SQL home of that rule: a full split is
-- a benchmark's full split of table benchmarks (etl/benchmarks.py FULL_SPLITS) or any other
-- split named full*; a benchmark the table does not know is a text benchmark.

CREATE OR REPLACE VIEW full_split_runs AS
SELECT
    r.run_id,
    r.benchmark,
    r.mode,
    r.split,
    r.model,
    coalesce(b.kind, 'text') AS benchmark_kind,
    coalesce(r.scored_elsewhere, false) AS scored_elsewhere
FROM runs AS r
LEFT JOIN benchmarks AS b ON b.benchmark = r.benchmark
WHERE NOT coalesce(r.is_archived, false)
    AND (r.split IN (SELECT full_split FROM benchmarks) OR r.split LIKE 'full%');

COMMENT ON VIEW full_split_runs IS 'Current (not archived) runs of a full split: the full split of a benchmark of table benchmarks (full1800, subset600, full2703) or any other split named full*. The runs the leaderboard ranks (leaderboard_runs) and the current runs an archived run without a same-split match falls back to (archive_match).';
COMMENT ON COLUMN full_split_runs.run_id IS 'Run id: logical path of the run directory (see runs).';
COMMENT ON COLUMN full_split_runs.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN full_split_runs.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN full_split_runs.split IS 'The run''s full split.';
COMMENT ON COLUMN full_split_runs.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN full_split_runs.benchmark_kind IS 'text or multimodal (benchmarks.kind; text for a benchmark the table does not know): which scorers are the defaults of its board (scorers.default_for).';
COMMENT ON COLUMN full_split_runs.scored_elsewhere IS 'True for a scored-only run (runs.scored_elsewhere): scores made outside this tree, no results of its own.';
