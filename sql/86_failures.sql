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

CREATE OR REPLACE VIEW failure_profile AS
WITH board AS (
    -- the board's results as the leaderboard scores them (default scorer), with the weight
    -- a result has in its question's score (1 / its attempts): the results of runs whose
    -- trajectories are in this file (a scored-only run has none to label)
    SELECT s.run_id, s.benchmark, s.mode, s.split, s.model, s.task, s.qid, s.run_index,
           s.score,
           1.0 / count(*) OVER (PARTITION BY s.run_id, s.qid) AS weight
    FROM leaderboard_result_scores AS s
    SEMI JOIN results AS r ON r.run_id = s.run_id AND r.qid = s.qid
                           AND r.run_index = s.run_index
),
cells AS (
    SELECT run_id, benchmark, mode, split, model, task,
           grouping(task) = 1 AS all_tasks,
           count(*) AS cell_results,
           count(DISTINCT qid) AS cell_questions
    FROM board
    GROUP BY GROUPING SETS ((run_id, benchmark, mode, split, model),
                            (run_id, benchmark, mode, split, model, task))
),
labelled AS (
    SELECT DISTINCT b.run_id, b.benchmark, b.mode, b.split, b.model, b.task, b.qid,
           b.run_index, b.score, b.weight, f.failure
    FROM board AS b
    JOIN result_failures AS f
        ON f.run_id = b.run_id AND f.qid = b.qid AND f.run_index = b.run_index
),
per_label AS (
    SELECT run_id, benchmark, mode, split, model, task,
           grouping(task) = 1 AS all_tasks,
           failure,
           count(*) AS n_results,
           count(DISTINCT qid) AS n_questions,
           sum((1.0 - score) * weight) AS points_lost
    FROM labelled
    GROUP BY GROUPING SETS ((run_id, benchmark, mode, split, model, failure),
                            (run_id, benchmark, mode, split, model, task, failure))
)
SELECT
    p.benchmark,
    p.mode,
    p.model,
    p.task,
    p.failure,
    p.n_results,
    CAST(p.n_results AS DOUBLE) / c.cell_results AS share,
    CAST(p.points_lost AS DOUBLE) AS points_lost,
    CAST(p.points_lost AS DOUBLE) / c.cell_questions AS score_lost,
    p.n_questions,
    c.cell_results,
    c.cell_questions,
    p.all_tasks,
    p.split,
    p.run_id
FROM per_label AS p
JOIN cells AS c
    ON c.run_id = p.run_id AND c.all_tasks = p.all_tasks
    AND c.task IS NOT DISTINCT FROM p.task;

COMMENT ON VIEW failure_profile IS 'Why each leaderboard run lost points: per run (all_tasks true, task NULL) and per run and task, for each failure label (result_failures), how many of the board''s results carry it, their share, and the points the run lost on them: the sum over those results of (1 - score) x 1 / the attempts of their question, so that points are counted as the board counts questions (one point = one question fully wrong). Scores are the board''s (leaderboard_result_scores, default scorer). A result carrying several labels counts under each, so the labels of a run add up to more than its loss.';
COMMENT ON COLUMN failure_profile.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN failure_profile.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN failure_profile.model IS 'Canonical model key.';
COMMENT ON COLUMN failure_profile.task IS 'Task of the row; NULL on the rows of the whole run (all_tasks).';
COMMENT ON COLUMN failure_profile.failure IS 'The label (table failures); none for clean results.';
COMMENT ON COLUMN failure_profile.n_results IS 'Results (qid, run_index) of the cell carrying the label.';
COMMENT ON COLUMN failure_profile.share IS 'n_results / cell_results: the share of the cell''s results carrying the label.';
COMMENT ON COLUMN failure_profile.points_lost IS 'Sum over those results of (1 - score) / the attempts of their question: the questions'' worth of score the run lost on them.';
COMMENT ON COLUMN failure_profile.score_lost IS 'points_lost / cell_questions: what those results took off the cell''s score (a fraction of it, comparable with the leaderboard''s score).';
COMMENT ON COLUMN failure_profile.n_questions IS 'Questions with at least one result carrying the label.';
COMMENT ON COLUMN failure_profile.cell_results IS 'Results of the cell (the run, or the run''s task) on the board.';
COMMENT ON COLUMN failure_profile.cell_questions IS 'Questions of the cell (the denominator of the board''s score).';
COMMENT ON COLUMN failure_profile.all_tasks IS 'True on the rows of the whole run (task NULL), false on the per-task rows.';
COMMENT ON COLUMN failure_profile.split IS 'Full split of the run.';
COMMENT ON COLUMN failure_profile.run_id IS 'The leaderboard run.';

CREATE OR REPLACE VIEW failure_kinds AS
WITH board_calls AS (
    SELECT c.run_id, count(*) AS run_calls
    FROM tool_calls AS c
    SEMI JOIN leaderboard_runs AS lr ON lr.run_id = c.run_id
    GROUP BY c.run_id
)
SELECT
    lr.benchmark, lr.mode, lr.model,
    f.failure, f.detail, f.tool,
    count(*) AS n_calls,
    count(DISTINCT (f.qid, f.run_index)) AS n_results,
    CAST(count(*) AS DOUBLE) / b.run_calls AS share_of_calls,
    lr.split,
    lr.run_id
FROM call_failures AS f
JOIN leaderboard_runs AS lr ON lr.run_id = f.run_id
JOIN board_calls AS b ON b.run_id = f.run_id
GROUP BY lr.benchmark, lr.mode, lr.model, f.failure, f.detail, f.tool, b.run_calls, lr.split,
         lr.run_id;

COMMENT ON VIEW failure_kinds IS 'The tool calls of each leaderboard run carrying each failure label, by kind (call_failures.detail) and tool: which SQL errors, which unknown tables, which timeouts, on which tool, and their share of the run''s calls.';
COMMENT ON COLUMN failure_kinds.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN failure_kinds.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN failure_kinds.model IS 'Canonical model key.';
COMMENT ON COLUMN failure_kinds.failure IS 'The label (table failures).';
COMMENT ON COLUMN failure_kinds.detail IS 'The kind (call_failures.detail; table failure_texts lists the writer''s texts of each).';
COMMENT ON COLUMN failure_kinds.tool IS 'The tool called (tool_calls.tool).';
COMMENT ON COLUMN failure_kinds.n_calls IS 'Calls of the run carrying the label with this kind on this tool.';
COMMENT ON COLUMN failure_kinds.n_results IS 'Results with at least one such call.';
COMMENT ON COLUMN failure_kinds.share_of_calls IS 'n_calls / every tool call of the run.';
COMMENT ON COLUMN failure_kinds.split IS 'Full split of the run.';
COMMENT ON COLUMN failure_kinds.run_id IS 'The leaderboard run.';
