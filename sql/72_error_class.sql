-- What went wrong with a result, in two classes researchers treat differently:
-- infrastructure (throttling, timeouts, connection and SSL errors, server errors: the run
-- never reached the model's answer, a re-run would likely succeed) and model (no finish
-- call / no final answer, context overflow, unparseable output). The texts are those the
-- writers store: deploy_agent*.py of ClinSeekAgent writes status error with
-- error = str(exception) and stop_reason exception / exception_before_completion, and
-- status incomplete with stop_reason no_final_answer when the last assistant message has
-- no finish call and no "Exact Answer:" text (also when max_rounds or the tool-less
-- reminder limit ends the loop: the record does not say which); one-shot writers store
-- "[ERROR] <exception>" texts with status error.

CREATE OR REPLACE VIEW result_error_class AS
WITH kinds AS (
    SELECT
        run_id, benchmark, mode, model, qid, run_index, status, stop_reason,
        -- error_kind is decided at load from the raw text (sql/load/error_kind.sql); a
        -- warehouse filled another way falls back on the status alone.
        coalesce(error_kind, CASE
            WHEN status = 'success' THEN 'none'
            WHEN status = 'incomplete' THEN 'no_final_answer'
            ELSE 'other'
        END) AS error_kind
    FROM results
)
SELECT
    run_id, benchmark, mode, model, qid, run_index, status, stop_reason,
    CASE
        WHEN error_kind = 'none' THEN 'none'
        WHEN error_kind IN ('throttling', 'ssl', 'timeout', 'connection', 'server')
            THEN 'infrastructure'
        WHEN error_kind IN ('context_length', 'parse_error', 'no_final_answer') THEN 'model'
        ELSE 'other'
    END AS error_class,
    error_kind
FROM kinds;

COMMENT ON VIEW result_error_class IS 'One row per result (run_id, qid, run_index) with error_class none / infrastructure / model / other and a finer error_kind, from results.error_kind, decided at load from the raw error text (sql/load/error_kind.sql: first matching pattern, case-insensitive: throttling, context_length, ssl, timeout, connection, server, parse_error, then status incomplete or stop_reason no_final_answer) so it survives --redact. Infrastructure = throttling, ssl, timeout, connection, server; model = context_length, parse_error, no_final_answer; other = an error text matching none.';
COMMENT ON COLUMN result_error_class.run_id IS 'Run of the result.';
COMMENT ON COLUMN result_error_class.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN result_error_class.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN result_error_class.model IS 'Canonical model key.';
COMMENT ON COLUMN result_error_class.qid IS 'Question id.';
COMMENT ON COLUMN result_error_class.run_index IS '1-based run number of the question.';
COMMENT ON COLUMN result_error_class.status IS 'Normalized status: success, incomplete or error.';
COMMENT ON COLUMN result_error_class.stop_reason IS 'Stop reason as written (finish_tool_call, no_final_answer, exception, ...).';
COMMENT ON COLUMN result_error_class.error_class IS 'none, infrastructure (the service failed: a re-run would likely succeed), model (the model did not produce a usable answer) or other.';
COMMENT ON COLUMN result_error_class.error_kind IS 'none, throttling, ssl, timeout, connection, server, context_length, parse_error, no_final_answer or other.';

CREATE OR REPLACE VIEW error_class_counts AS
SELECT
    benchmark, mode, model, run_id, error_class, error_kind,
    count(*) AS n_results
FROM result_error_class
GROUP BY benchmark, mode, model, run_id, error_class, error_kind;

COMMENT ON VIEW error_class_counts IS 'Result rows per run, error_class and error_kind (see result_error_class); every run, archived ones included.';
COMMENT ON COLUMN error_class_counts.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN error_class_counts.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN error_class_counts.model IS 'Canonical model key.';
COMMENT ON COLUMN error_class_counts.run_id IS 'The run.';
COMMENT ON COLUMN error_class_counts.error_class IS 'none, infrastructure, model or other.';
COMMENT ON COLUMN error_class_counts.error_kind IS 'Finer kind (see result_error_class).';
COMMENT ON COLUMN error_class_counts.n_results IS 'Result rows (qid, run_index) of that class and kind.';

CREATE OR REPLACE VIEW leaderboard_without_infra_errors AS
WITH kept AS (
    SELECT s.*
    FROM leaderboard_result_scores AS s
    JOIN result_error_class AS c
        ON c.run_id = s.run_id AND c.qid = s.qid AND c.run_index = s.run_index
    WHERE c.error_class <> 'infrastructure'
),
per_question AS (
    SELECT run_id, qid, avg(score) AS score
    FROM kept
    GROUP BY run_id, qid
),
per_run AS (
    SELECT run_id, count(*) AS n_questions, avg(score) AS score, stddev_samp(score) AS score_sd
    FROM per_question
    GROUP BY run_id
),
dropped AS (
    SELECT c.run_id, count(*) AS n_infra_results
    FROM result_error_class AS c
    WHERE c.error_class = 'infrastructure'
    GROUP BY c.run_id
)
SELECT
    l.benchmark,
    l.mode,
    l.model,
    coalesce(p.n_questions, 0) AS n_questions,
    p.score,
    CASE WHEN p.n_questions > 1
        THEN greatest(0.0, p.score - 1.959963984540054 * p.score_sd / sqrt(p.n_questions))
    END AS ci_low,
    CASE WHEN p.n_questions > 1
        THEN least(1.0, p.score + 1.959963984540054 * p.score_sd / sqrt(p.n_questions))
    END AS ci_high,
    rank() OVER (PARTITION BY l.benchmark, l.mode ORDER BY p.score DESC NULLS LAST) AS rank,
    coalesce(d.n_infra_results, 0) AS n_infra_results,
    l.n_questions AS default_n_questions,
    l.score AS default_score,
    l.rank AS default_rank,
    l.score_source,
    l.run_id
FROM leaderboard AS l
LEFT JOIN per_run AS p ON p.run_id = l.run_id
LEFT JOIN dropped AS d ON d.run_id = l.run_id;

COMMENT ON VIEW leaderboard_without_infra_errors IS 'The leaderboard with infrastructure errors left out (result_error_class.error_class = infrastructure: throttling, timeouts, connection, SSL, server errors): such results are dropped instead of scoring 0, a question whose every run was dropped leaves the denominator; model errors still score 0. Same scorer, micro mean and 95% normal interval as leaderboard; the default numbers sit beside it (default_*).';
COMMENT ON COLUMN leaderboard_without_infra_errors.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_without_infra_errors.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_without_infra_errors.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_without_infra_errors.n_questions IS 'Questions left with at least one result that is not an infrastructure error.';
COMMENT ON COLUMN leaderboard_without_infra_errors.score IS 'Micro mean of per-question scores over those results, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard_without_infra_errors.ci_low IS 'Lower end of the 95% normal-approximation interval, clipped to 0.';
COMMENT ON COLUMN leaderboard_without_infra_errors.ci_high IS 'Upper end of the 95% normal-approximation interval, clipped to 1.';
COMMENT ON COLUMN leaderboard_without_infra_errors.rank IS 'Rank by this score within (benchmark, mode).';
COMMENT ON COLUMN leaderboard_without_infra_errors.n_infra_results IS 'Result rows of the run left out as infrastructure errors.';
COMMENT ON COLUMN leaderboard_without_infra_errors.default_n_questions IS 'n_questions of the default leaderboard.';
COMMENT ON COLUMN leaderboard_without_infra_errors.default_score IS 'Score of the default leaderboard (infrastructure errors scored 0).';
COMMENT ON COLUMN leaderboard_without_infra_errors.default_rank IS 'Rank on the default leaderboard.';
COMMENT ON COLUMN leaderboard_without_infra_errors.score_source IS 'Scorer of the per-question rows (as leaderboard).';
COMMENT ON COLUMN leaderboard_without_infra_errors.run_id IS 'The run.';
