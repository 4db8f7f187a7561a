-- Consistency over attempts: for leaderboard runs with several attempts (run_index) at a
-- question, how often the attempts agree on the outcome (the board's score), on the answer
-- set (the normalized reading, results.prediction_items) and on the sequence of tools they
-- called. docs/ANALYSIS.md; pass^k and the flip rate of exact answers are
-- leaderboard_reliability's.

CREATE OR REPLACE VIEW attempt_consistency AS
WITH attempts AS (
    -- the answer set: result_answers.answer, the sorted distinct normalized items as JSON
    SELECT s.run_id, s.benchmark, s.mode, s.split, s.model, s.task, s.qid, s.run_index,
           s.score, a.answer AS answer_set,
           count(*) OVER (PARTITION BY s.run_id, s.qid) AS n_attempts
    FROM leaderboard_result_scores AS s
    JOIN result_answers AS a
        ON a.run_id = s.run_id AND a.qid = s.qid AND a.run_index = s.run_index
),
sequences AS (
    -- the tools an attempt called, in the order it called them
    SELECT run_id, qid, run_index,
           string_agg(coalesce(tool, '?'), ' > ' ORDER BY msg_idx, call_idx) AS tools
    FROM tool_calls
    GROUP BY run_id, qid, run_index
),
questions AS (
    SELECT a.run_id, a.benchmark, a.mode, a.split, a.model, a.task, a.qid,
           count(*) AS n_attempts,
           max(a.score) - min(a.score) <= 1e-12 AS same_outcome,
           count(DISTINCT a.answer_set) = 1 AS same_answer,
           count(DISTINCT coalesce(q.tools, '')) = 1 AS same_tools
    FROM attempts AS a
    LEFT JOIN sequences AS q
        ON q.run_id = a.run_id AND q.qid = a.qid AND q.run_index = a.run_index
    WHERE a.n_attempts > 1
    GROUP BY a.run_id, a.benchmark, a.mode, a.split, a.model, a.task, a.qid
)
SELECT
    benchmark, mode, model, task,
    count(*) AS n_questions,
    CAST(sum(n_attempts) AS BIGINT) AS n_attempts,
    avg(CASE WHEN same_outcome THEN 1 ELSE 0 END) AS outcome_agreement,
    avg(CASE WHEN same_answer THEN 1 ELSE 0 END) AS answer_agreement,
    avg(CASE WHEN same_tools THEN 1 ELSE 0 END) AS tool_sequence_agreement,
    grouping(task) = 1 AS all_tasks,
    split,
    run_id
FROM questions
GROUP BY GROUPING SETS ((run_id, benchmark, mode, split, model),
                        (run_id, benchmark, mode, split, model, task));

COMMENT ON VIEW attempt_consistency IS 'For each leaderboard run with several attempts (run_index) at some question (all_tasks, task NULL) and each of its tasks: over its questions with two or more attempts, the share whose attempts all agree on the outcome (the same board score, to 1e-12), on the answer set (the same normalized answer items, in any order: results.prediction_items) and on the sequence of tools called (the same tools in the same order). Runs with one attempt per question have no row.';
COMMENT ON COLUMN attempt_consistency.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN attempt_consistency.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN attempt_consistency.model IS 'Canonical model key.';
COMMENT ON COLUMN attempt_consistency.task IS 'Task of the row; NULL on the rows of the whole run (all_tasks).';
COMMENT ON COLUMN attempt_consistency.n_questions IS 'Questions with two or more attempts (the shares are over them).';
COMMENT ON COLUMN attempt_consistency.n_attempts IS 'Attempts at those questions.';
COMMENT ON COLUMN attempt_consistency.outcome_agreement IS 'Share of those questions whose attempts all have the same board score (leaderboard_result_scores.score).';
COMMENT ON COLUMN attempt_consistency.answer_agreement IS 'Share whose attempts all give the same set of normalized answer items (result_answers.answer; an attempt without an answer: the empty set).';
COMMENT ON COLUMN attempt_consistency.tool_sequence_agreement IS 'Share whose attempts all call the same tools in the same order (tool_calls.tool by message and call).';
COMMENT ON COLUMN attempt_consistency.all_tasks IS 'True on the rows of the whole run (task NULL), false on the per-task rows.';
COMMENT ON COLUMN attempt_consistency.split IS 'Full split of the run.';
COMMENT ON COLUMN attempt_consistency.run_id IS 'The leaderboard run.';
