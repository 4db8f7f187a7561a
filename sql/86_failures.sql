-- Why agents fail: the failure labels of every result (the calls' labels of call_failures,
-- the whole-trajectory labels of result_checks, both decided at parse time by
-- etl/failures/; the run's own error from results.error_kind), and what they cost on the
-- leaderboard. The labels are the rows of table failures (etl/failures/registry.py); their
-- rules and an example each: docs/ANALYSIS.md.

CREATE OR REPLACE VIEW result_failures AS
WITH call_details AS (
    -- per result, label and kind: how many calls show it
    SELECT run_id, qid, run_index, failure, detail, count(*) AS n_calls
    FROM call_failures
    GROUP BY run_id, qid, run_index, failure, detail
),
call_labels AS (
    -- a result carries every label of its calls; its detail is the kind most of those
    -- calls show (ties: the first by name)
    SELECT run_id, qid, run_index, failure,
           min(detail) FILTER (WHERE n_calls = max_calls) AS detail,
           sum(n_calls) AS n_calls
    FROM (SELECT *, max(n_calls) OVER (PARTITION BY run_id, qid, run_index, failure)
                    AS max_calls
          FROM call_details) AS d
    GROUP BY run_id, qid, run_index, failure
),
run_labels AS (
    -- the run's own end: an infrastructure error (results.error_kind, decided at load by
    -- sql/load/error_kind.sql; result_error_class maps it), any other error of the run
    SELECT run_id, qid, run_index,
           CASE WHEN error_class = 'infrastructure' THEN 'infrastructure' ELSE 'run_error' END
               AS failure,
           error_kind AS detail
    FROM result_error_class
    WHERE error_class = 'infrastructure' OR status = 'error'
),
labels AS (
    SELECT run_id, qid, run_index, failure, detail, 0 AS level, n_calls FROM result_checks
    UNION ALL
    SELECT run_id, qid, run_index, failure, detail, 1 AS level, 0 AS n_calls FROM run_labels
    UNION ALL
    SELECT run_id, qid, run_index, failure, detail, 2 AS level, n_calls FROM call_labels
),
merged AS (
    -- one row per result and label: the result's own detail before its calls'
    SELECT run_id, qid, run_index, failure,
           arg_min(detail, level) AS detail,
           CAST(sum(n_calls) AS BIGINT) AS n_calls
    FROM labels
    GROUP BY run_id, qid, run_index, failure
)
SELECT
    r.run_id, r.benchmark, r.mode, r.model, r.task, r.qid, r.run_index,
    coalesce(m.failure, 'none') AS failure,
    m.detail,
    coalesce(m.n_calls, 0) AS n_calls
FROM results AS r
LEFT JOIN merged AS m ON m.run_id = r.run_id AND m.qid = r.qid AND m.run_index = r.run_index;

COMMENT ON VIEW result_failures IS 'Every result with each failure label it carries (table failures, docs/ANALYSIS.md), one row per result and label: the labels decided over its whole trajectory (result_checks: repeated_call, no_final_answer, empty_answer, answer_outside_candidates), every label one of its calls carries (call_failures), infrastructure when the run itself ended in a throttling, timeout, connection, SSL or server error (result_error_class) and run_error when it ended in any other error; none for a result with no label at all.';
COMMENT ON COLUMN result_failures.run_id IS 'Run of the result.';
COMMENT ON COLUMN result_failures.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN result_failures.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN result_failures.model IS 'Canonical model key.';
COMMENT ON COLUMN result_failures.task IS 'Task of the question.';
COMMENT ON COLUMN result_failures.qid IS 'Question id.';
COMMENT ON COLUMN result_failures.run_index IS '1-based run number of the question.';
COMMENT ON COLUMN result_failures.failure IS 'The label (table failures), none for a clean result.';
COMMENT ON COLUMN result_failures.detail IS 'Which kind: the result rule''s detail, the run''s error_kind, or the kind most of its calls show (call_failures.detail); NULL for none.';
COMMENT ON COLUMN result_failures.n_calls IS 'Tool calls of the result carrying the label (for repeated_call the calls repeating an earlier one); 0 for a label of the whole result.';
