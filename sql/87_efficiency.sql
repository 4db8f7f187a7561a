-- What each leaderboard run spent for its score: tool calls, steps (assistant messages) and
-- characters of tool results read, per question and per point of score, and the runs no
-- other run of their board beats on both score and calls per question (HAL's cost frontier,
-- with calls as the cost: ClinSeek records carry no token counts or prices; where a record
-- does, table token_usage, its tokens are here too). docs/ANALYSIS.md.

CREATE OR REPLACE VIEW efficiency AS
WITH board AS (
    -- the board's questions (default scorer) of runs whose trajectories are in this file
    SELECT q.run_id, q.benchmark, q.mode, q.split, q.model, q.task, q.qid, q.score, q.n_runs
    FROM leaderboard_question_scores AS q
    SEMI JOIN results AS r ON r.run_id = q.run_id AND r.qid = q.qid
),
calls AS (
    SELECT run_id, qid, count(*) AS n_calls, sum(coalesce(result_chars, 0)) AS result_chars
    FROM tool_calls
    GROUP BY run_id, qid
),
steps AS (
    SELECT run_id, qid, count(*) AS n_steps
    FROM messages
    WHERE role = 'assistant'
    GROUP BY run_id, qid
),
tokens AS (
    -- tokens where the records carry them (token_usage, scope sample: one row per result
    -- and model)
    SELECT run_id, qid,
           count(DISTINCT run_index) AS n_results_with_usage,
           sum(input_tokens) AS input_tokens,
           sum(output_tokens) AS output_tokens,
           sum(total_tokens) AS total_tokens
    FROM token_usage
    WHERE scope = 'sample'
    GROUP BY run_id, qid
),
per_question AS (
    SELECT b.*, coalesce(c.n_calls, 0) AS n_calls, coalesce(c.result_chars, 0) AS result_chars,
           coalesce(s.n_steps, 0) AS n_steps, t.n_results_with_usage, t.input_tokens,
           t.output_tokens, t.total_tokens
    FROM board AS b
    LEFT JOIN calls AS c ON c.run_id = b.run_id AND c.qid = b.qid
    LEFT JOIN steps AS s ON s.run_id = b.run_id AND s.qid = b.qid
    LEFT JOIN tokens AS t ON t.run_id = b.run_id AND t.qid = b.qid
),
cells AS (
    SELECT run_id, benchmark, mode, split, model, task,
           grouping(task) = 1 AS all_tasks,
           count(*) AS n_questions,
           sum(n_runs) AS n_results,
           sum(n_calls) AS n_calls,
           sum(n_steps) AS n_steps,
           sum(result_chars) AS result_chars,
           sum(score) AS points,
           avg(score) AS score,
           sum(n_results_with_usage) AS n_results_with_usage,
           sum(input_tokens) AS input_tokens,
           sum(output_tokens) AS output_tokens,
           sum(total_tokens) AS total_tokens
    FROM per_question
    GROUP BY GROUPING SETS ((run_id, benchmark, mode, split, model),
                            (run_id, benchmark, mode, split, model, task))
)
SELECT
    benchmark, mode, model, task,
    n_questions,
    CAST(n_results AS BIGINT) AS n_results,
    CAST(n_calls AS BIGINT) AS n_calls,
    CAST(n_steps AS BIGINT) AS n_steps,
    CAST(result_chars AS BIGINT) AS result_chars,
    CAST(points AS DOUBLE) AS points,
    CAST(score AS DOUBLE) AS score,
    CAST(n_calls AS DOUBLE) / n_questions AS calls_per_question,
    CAST(n_calls AS DOUBLE) / n_results AS calls_per_attempt,
    CAST(n_steps AS DOUBLE) / n_questions AS steps_per_question,
    CAST(result_chars AS DOUBLE) / n_questions AS chars_per_question,
    CASE WHEN points > 0 THEN CAST(n_calls AS DOUBLE) / points END AS calls_per_point,
    CASE WHEN points > 0 THEN CAST(n_steps AS DOUBLE) / points END AS steps_per_point,
    CASE WHEN points > 0 THEN CAST(result_chars AS DOUBLE) / points END AS chars_per_point,
    CAST(coalesce(n_results_with_usage, 0) AS BIGINT) AS n_results_with_usage,
    CAST(input_tokens AS BIGINT) AS input_tokens,
    CAST(output_tokens AS BIGINT) AS output_tokens,
    CAST(total_tokens AS BIGINT) AS total_tokens,
    CASE WHEN n_results_with_usage > 0 THEN CAST(total_tokens AS DOUBLE) / n_questions END
        AS tokens_per_question,
    CASE WHEN n_results_with_usage > 0 AND points > 0 THEN CAST(total_tokens AS DOUBLE) / points
    END AS tokens_per_point,
    all_tasks,
    split,
    run_id
FROM cells;

COMMENT ON VIEW efficiency IS 'What each leaderboard run (all_tasks, task NULL) and each of its tasks spent: tool calls, steps (assistant messages) and characters of tool results read, summed over every attempt of the board''s questions, per question and per point of score (a point = one question fully right: the sum of the board''s question scores, so partial credit counts its part). Runs whose results are not in the file (scored-only runs) are left out. Tokens where records carry them (token_usage, scope sample: Inspect AI logs, the raw QA rows of eval_ehrbench_qa.py); ClinSeek agent records carry none, so calls and characters stand in for the cost.';
COMMENT ON COLUMN efficiency.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN efficiency.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN efficiency.model IS 'Canonical model key.';
COMMENT ON COLUMN efficiency.task IS 'Task of the row; NULL on the rows of the whole run (all_tasks).';
COMMENT ON COLUMN efficiency.n_questions IS 'Questions of the cell on the board (the denominator of its score).';
COMMENT ON COLUMN efficiency.n_results IS 'Attempts (results) of those questions.';
COMMENT ON COLUMN efficiency.n_calls IS 'Tool calls over every attempt (tool_calls rows).';
COMMENT ON COLUMN efficiency.n_steps IS 'Steps over every attempt: assistant messages (messages.role = assistant).';
COMMENT ON COLUMN efficiency.result_chars IS 'Characters of tool results read over every attempt (sum of tool_calls.result_chars).';
COMMENT ON COLUMN efficiency.points IS 'Sum of the board''s question scores (leaderboard_question_scores): how many questions'' worth the cell got right.';
COMMENT ON COLUMN efficiency.score IS 'Mean of the board''s question scores over the cell''s questions (the leaderboard''s score of the run, or of its task).';
COMMENT ON COLUMN efficiency.calls_per_question IS 'n_calls / n_questions: every attempt''s calls (a run with two attempts per question counts both).';
COMMENT ON COLUMN efficiency.calls_per_attempt IS 'n_calls / n_results: the calls one attempt at a question makes, the cost that goes with the board''s score (itself the mean over attempts).';
COMMENT ON COLUMN efficiency.steps_per_question IS 'n_steps / n_questions.';
COMMENT ON COLUMN efficiency.chars_per_question IS 'result_chars / n_questions.';
COMMENT ON COLUMN efficiency.calls_per_point IS 'n_calls / points: tool calls per question answered right; NULL when points is 0.';
COMMENT ON COLUMN efficiency.steps_per_point IS 'n_steps / points; NULL when points is 0.';
COMMENT ON COLUMN efficiency.chars_per_point IS 'result_chars / points; NULL when points is 0.';
COMMENT ON COLUMN efficiency.n_results_with_usage IS 'Results whose record carries token counts (token_usage); 0 for ClinSeek agent records, which carry none.';
COMMENT ON COLUMN efficiency.input_tokens IS 'Input tokens over the results that carry them; NULL when none does.';
COMMENT ON COLUMN efficiency.output_tokens IS 'Output tokens over the results that carry them; NULL when none does.';
COMMENT ON COLUMN efficiency.total_tokens IS 'Total tokens over the results that carry them; NULL when none does.';
COMMENT ON COLUMN efficiency.tokens_per_question IS 'total_tokens / n_questions; NULL when no result carries tokens (a run whose results carry them only in part is understated).';
COMMENT ON COLUMN efficiency.tokens_per_point IS 'total_tokens / points; NULL when no result carries tokens or points is 0.';
COMMENT ON COLUMN efficiency.all_tasks IS 'True on the rows of the whole run (task NULL), false on the per-task rows.';
COMMENT ON COLUMN efficiency.split IS 'Full split of the run.';
COMMENT ON COLUMN efficiency.run_id IS 'The leaderboard run.';

CREATE OR REPLACE VIEW efficiency_frontier AS
WITH runs_of_board AS (
    SELECT run_id, benchmark, mode, model, split, score, calls_per_attempt
    FROM efficiency
    WHERE all_tasks
),
beaten AS (
    -- another run of the board at least as good on both, better on one
    SELECT a.run_id, min(b.run_id) AS beaten_by, count(*) AS n_better
    FROM runs_of_board AS a
    JOIN runs_of_board AS b
        ON b.benchmark IS NOT DISTINCT FROM a.benchmark AND b.mode IS NOT DISTINCT FROM a.mode
        AND b.run_id <> a.run_id
        AND b.score >= a.score AND b.calls_per_attempt <= a.calls_per_attempt
        AND (b.score > a.score OR b.calls_per_attempt < a.calls_per_attempt)
    GROUP BY a.run_id
)
SELECT
    r.benchmark, r.mode, r.model, r.score, r.calls_per_attempt,
    x.run_id IS NULL AS on_frontier,
    x.beaten_by,
    coalesce(x.n_better, 0) AS n_better,
    r.split,
    r.run_id
FROM runs_of_board AS r
LEFT JOIN beaten AS x ON x.run_id = r.run_id;

COMMENT ON VIEW efficiency_frontier IS 'Each leaderboard run with its score and tool calls per question (efficiency, whole run: the calls of one attempt at a question, as the score is the mean over attempts), and whether it is on its board''s cost frontier: no other run of the same benchmark and mode scores at least as high with at most as many calls per question and is better on one of the two (HAL''s cost frontier, calls standing in for the cost ClinSeek records do not carry).';
COMMENT ON COLUMN efficiency_frontier.benchmark IS 'Benchmark of the run (the board).';
COMMENT ON COLUMN efficiency_frontier.mode IS 'agentic or oneshot (the board).';
COMMENT ON COLUMN efficiency_frontier.model IS 'Canonical model key.';
COMMENT ON COLUMN efficiency_frontier.score IS 'The run''s score on the board (efficiency.score).';
COMMENT ON COLUMN efficiency_frontier.calls_per_attempt IS 'Tool calls one attempt at a question makes (efficiency.calls_per_attempt; equal to calls per question for a run with one attempt per question).';
COMMENT ON COLUMN efficiency_frontier.on_frontier IS 'True when no other run of the board beats it on both score and calls per attempt.';
COMMENT ON COLUMN efficiency_frontier.beaten_by IS 'A run of the board that beats it (the first by run id); NULL on the frontier.';
COMMENT ON COLUMN efficiency_frontier.n_better IS 'Runs of the board that beat it; 0 on the frontier.';
COMMENT ON COLUMN efficiency_frontier.split IS 'Full split of the run.';
COMMENT ON COLUMN efficiency_frontier.run_id IS 'The leaderboard run.';
