-- Inputs of the paired comparisons (etl/comparison.py), as temp tables: the per-question
-- scores once (the view is costly) and the pairs, each in a batch of at most
-- $pairs_per_batch pairs of one benchmark (the later steps run one batch at a time, so their
-- memory does not grow with the number of pairs). With $run_ids, only the pairs that hold
-- one of those runs.
CREATE OR REPLACE TEMP TABLE cmp_question_scores AS
SELECT run_id, benchmark, mode, model, qid, task, task_group, score
FROM leaderboard_question_scores;

CREATE OR REPLACE TEMP TABLE cmp_pairs AS
WITH runs AS (SELECT DISTINCT run_id, benchmark, mode, model FROM cmp_question_scores),
pairs AS (
    SELECT 'model' AS kind, a.*, b.run_id AS run_b, b.mode AS mode_b, b.model AS model_b
    FROM runs AS a JOIN runs AS b
        ON a.benchmark = b.benchmark AND a.mode = b.mode AND a.run_id < b.run_id
    UNION ALL
    SELECT 'mode' AS kind, a.*, b.run_id AS run_b, b.mode AS mode_b, b.model AS model_b
    FROM runs AS a JOIN runs AS b
        ON a.benchmark = b.benchmark AND a.model = b.model
        AND a.mode = 'agentic' AND b.mode = 'oneshot'
)
SELECT
    -- The pivot column name of the pair: built from a row number, never from data.
    'p' || lpad(CAST(row_number() OVER (ORDER BY kind, run_id, run_b) AS VARCHAR), 9, '0')
        AS pair,
    kind, benchmark, run_id AS run_a, mode AS mode_a, model AS model_a, run_b, mode_b, model_b,
    -- Batches never mix benchmarks: a batch's pairs are pivoted over its benchmark's questions.
    dense_rank() OVER (ORDER BY benchmark) * 1000000000
        + (row_number() OVER (PARTITION BY benchmark ORDER BY kind, run_id, run_b) - 1)
          // $pairs_per_batch AS batch
FROM pairs
WHERE $run_ids::VARCHAR[] IS NULL OR list_contains($run_ids::VARCHAR[], run_id)
   OR list_contains($run_ids::VARCHAR[], run_b);

