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
