-- Tokens each run used, where its logs record them (token_usage: Inspect AI logs), beside
-- its results: what a run costs, per result. Sample-scope rows only (a sample's usage per
-- model), so no call is counted twice.

CREATE OR REPLACE VIEW usage_per_run AS
WITH per_run AS (
    SELECT
        run_id,
        count(DISTINCT qid || '#' || CAST(run_index AS VARCHAR)) AS n_results_with_usage,
        CAST(sum(input_tokens) AS BIGINT) AS input_tokens,
        CAST(sum(output_tokens) AS BIGINT) AS output_tokens,
        CAST(sum(total_tokens) AS BIGINT) AS total_tokens,
        CAST(sum(reasoning_tokens) AS BIGINT) AS reasoning_tokens,
        sum(total_cost) AS total_cost
    FROM token_usage
    WHERE scope = 'sample'
    GROUP BY run_id
)
SELECT
    r.benchmark,
    r.mode,
    r.model,
    r.run_id,
    r.n_results,
    p.n_results_with_usage,
    p.input_tokens,
    p.output_tokens,
    p.total_tokens,
    p.reasoning_tokens,
    p.total_cost,
    CAST(p.total_tokens AS DOUBLE) / p.n_results_with_usage AS tokens_per_result
FROM per_run AS p
JOIN runs AS r ON r.run_id = p.run_id;

COMMENT ON VIEW usage_per_run IS 'Tokens (and cost, where the log prices them) each run used, summed over its results'' sample-scope token_usage rows (Inspect AI logs record them, and the raw QA rows of eval_ehrbench_qa.py; the ClinSeek agent records do not), and per result.';
COMMENT ON COLUMN usage_per_run.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN usage_per_run.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN usage_per_run.model IS 'Canonical model key.';
COMMENT ON COLUMN usage_per_run.run_id IS 'The run.';
COMMENT ON COLUMN usage_per_run.n_results IS 'Results of the run (runs.n_results).';
COMMENT ON COLUMN usage_per_run.n_results_with_usage IS 'Results with recorded usage.';
COMMENT ON COLUMN usage_per_run.input_tokens IS 'Input tokens over those results.';
COMMENT ON COLUMN usage_per_run.output_tokens IS 'Output tokens over those results.';
COMMENT ON COLUMN usage_per_run.total_tokens IS 'Total tokens over those results, as the logs report them.';
COMMENT ON COLUMN usage_per_run.reasoning_tokens IS 'Reasoning tokens, where reported; NULL when no result reports any.';
COMMENT ON COLUMN usage_per_run.total_cost IS 'Cost as the logs report it; NULL when none is priced.';
COMMENT ON COLUMN usage_per_run.tokens_per_result IS 'total_tokens / n_results_with_usage.';
