-- How complete each run is: questions expected by the split against those present.

CREATE OR REPLACE VIEW coverage AS
WITH per_run AS (
    SELECT
        run_id,
        count(DISTINCT qid) AS present,
        count(*) AS n_results,
        count(*) FILTER (WHERE status = 'error') AS errors,
        count(*) FILTER (WHERE status = 'incomplete') AS incomplete,
        count(DISTINCT qid) FILTER (WHERE status = 'error') AS error_questions
    FROM results
    GROUP BY run_id
)
SELECT
    r.run_id,
    r.expected_questions,
    coalesce(p.present, 0) AS present,
    CASE WHEN r.expected_questions IS NOT NULL
        THEN greatest(r.expected_questions - coalesce(p.present, 0), 0)
    END AS missing,
    coalesce(p.errors, 0) AS errors,
    coalesce(p.incomplete, 0) AS incomplete,
    coalesce(p.n_results, 0) AS n_results,
    coalesce(p.error_questions, 0) AS error_questions,
    r.benchmark,
    r.mode,
    r.split,
    r.model,
    r.is_archived,
    r.archive_name
FROM runs AS r
LEFT JOIN per_run AS p ON p.run_id = r.run_id;

COMMENT ON VIEW coverage IS 'One row per run (archived and smoke runs included): present = distinct questions with at least one result; missing = expected_questions - present (not below 0, NULL when the split gives no expected count); errors / incomplete = results (run_id, qid, run_index rows) with status error / incomplete; n_results = all result rows. Counts, no score and no interval.';
COMMENT ON COLUMN coverage.present IS 'Distinct questions with at least one result row in the run.';
COMMENT ON COLUMN coverage.missing IS 'expected_questions - present, floored at 0; NULL when expected_questions is unknown.';
COMMENT ON COLUMN coverage.errors IS 'Result rows (qid, run_index) with status error.';
COMMENT ON COLUMN coverage.incomplete IS 'Result rows (qid, run_index) with status incomplete.';
COMMENT ON COLUMN coverage.run_id IS 'Run id: logical path of the run directory (see runs); archived runs included.';
COMMENT ON COLUMN coverage.expected_questions IS 'Questions the split should hold (1800, 600, 2703, 20, ...); NULL when the split does not say.';
COMMENT ON COLUMN coverage.n_results IS 'All result rows (qid, run_index) of the run; several per question when questions were run more than once.';
COMMENT ON COLUMN coverage.error_questions IS 'Distinct questions with at least one result row of status error (a count of questions, not of rows).';
COMMENT ON COLUMN coverage.benchmark IS 'Benchmark of the run; NULL when unknown (archives whose name cannot be read).';
COMMENT ON COLUMN coverage.mode IS 'agentic or oneshot; NULL when unknown.';
COMMENT ON COLUMN coverage.split IS 'Split as named by the directory: smoke20, full1800, subset600, full2703, ...';
COMMENT ON COLUMN coverage.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN coverage.is_archived IS 'True for runs under _archive/.';
COMMENT ON COLUMN coverage.archive_name IS 'Directory name under _archive/; NULL for current runs.';
