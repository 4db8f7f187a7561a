-- Which tools each leaderboard run calls and how often.

CREATE OR REPLACE VIEW tool_usage AS
WITH run_questions AS (
    SELECT run_id, count(DISTINCT qid) AS n_questions, count(*) AS n_results
    FROM results
    GROUP BY run_id
),
calls AS (
    SELECT
        run_id,
        tool,
        count(*) AS n_calls,
        count(*) FILTER (WHERE is_error) AS n_error_calls
    FROM tool_calls
    GROUP BY run_id, tool
)
SELECT
    lr.benchmark,
    lr.mode,
    lr.model,
    c.tool,
    c.n_calls,
    CAST(c.n_calls AS DOUBLE) / q.n_questions AS calls_per_question,
    CAST(c.n_calls AS DOUBLE) / q.n_results AS calls_per_result,
    c.n_error_calls,
    lr.split,
    lr.run_id
FROM leaderboard_runs AS lr
JOIN calls AS c ON c.run_id = lr.run_id
JOIN run_questions AS q ON q.run_id = lr.run_id;

COMMENT ON VIEW tool_usage IS 'Tool calls (normalized dotted tool names) of the leaderboard runs (current, full splits): n_calls over all results of the run; calls_per_question = n_calls / distinct questions present in the run; calls_per_result = n_calls / result rows (qid, run_index). Not a score; no interval.';
COMMENT ON COLUMN tool_usage.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN tool_usage.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN tool_usage.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN tool_usage.tool IS 'Tool name normalized to dotted form (ehr.load_ehr).';
COMMENT ON COLUMN tool_usage.n_calls IS 'Calls of the tool over all result rows of the run (a count of calls).';
COMMENT ON COLUMN tool_usage.calls_per_question IS 'n_calls / distinct questions present in the run (calls per question, all its runs together).';
COMMENT ON COLUMN tool_usage.calls_per_result IS 'n_calls / result rows (qid, run_index) of the run (calls per answered attempt).';
COMMENT ON COLUMN tool_usage.n_error_calls IS 'Calls of the tool whose answering tool message reports an error.';
COMMENT ON COLUMN tool_usage.split IS 'Full split of the run.';
COMMENT ON COLUMN tool_usage.run_id IS 'The leaderboard run the calls belong to (see runs).';
