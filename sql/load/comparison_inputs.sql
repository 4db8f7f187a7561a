-- Inputs of the paired comparisons (etl/comparison.py), as temp tables: the per-question
-- scores once (the view is costly) of the runs that can pair with a run the load re-ranked
-- (load_runs), and the pairs that have such a run, each in a batch of at most
-- $pairs_per_batch pairs of one benchmark (comparison_pair_questions.sql and the later
-- steps run one batch at a time, so their memory does not grow with the number of pairs).
-- The cell of a row of a GROUPING SETS ((.., task_group, task), (.., task_group), (..))
-- aggregation, used by comparison_bootstrap.sql and comparison_finish.sql: its scope from
-- grouping(task_group, task), and each label ('' where rolled up, so later joins are plain
-- equality joins) from grouping(label), label.
CREATE OR REPLACE TEMP MACRO cmp_scope(rolled_up) AS
    CASE rolled_up WHEN 0 THEN 'task' WHEN 1 THEN 'group' ELSE 'overall' END;
CREATE OR REPLACE TEMP MACRO cmp_label(rolled_up, label) AS
    CASE WHEN rolled_up = 1 THEN '' ELSE label END;

CREATE OR REPLACE TEMP TABLE cmp_question_scores AS
SELECT s.run_id, s.benchmark, s.mode, s.model, s.qid, s.task, s.task_group, s.score, c.cluster
FROM leaderboard_question_scores AS s
-- the question's patient (view question_clusters), for the clustered standard error
LEFT JOIN question_clusters AS c ON c.run_id = s.run_id AND c.qid = s.qid
-- $paired_runs: the runs that can pair with a re-ranked one (comparison_runs.sql)
WHERE list_contains($paired_runs, s.run_id);

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
),
wanted AS (
    SELECT * FROM pairs
    WHERE run_id IN (SELECT run_id FROM load_runs) OR run_b IN (SELECT run_id FROM load_runs)
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
FROM wanted;
