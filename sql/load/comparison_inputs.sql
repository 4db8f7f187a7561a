-- Inputs of the paired comparisons (etl/comparison.py), as temp tables: the per-question
-- scores once (the view is costly) of the benchmarks with a run the load re-ranked
-- (load_runs), the pairs that have such a run, and the shared questions of each pair with
-- the hash key of the question that draws its bootstrap weights and its patient (cluster).
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
WHERE s.benchmark IN (SELECT benchmark FROM runs
                      WHERE run_id IN (SELECT run_id FROM load_runs));

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
    'p' || lpad(CAST(row_number() OVER (ORDER BY kind, run_id, run_b) AS VARCHAR), 6, '0')
        AS pair,
    kind, benchmark, run_id AS run_a, mode AS mode_a, model AS model_a, run_b, mode_b, model_b
FROM pairs
WHERE run_id IN (SELECT run_id FROM load_runs) OR run_b IN (SELECT run_id FROM load_runs);

CREATE OR REPLACE TEMP TABLE cmp_pair_questions AS
SELECT
    p.pair,
    p.benchmark,
    a.qid,
    -- '' stands for a missing label so every later join is an equality join.
    coalesce(a.task_group, '') AS task_group,
    coalesce(a.task, '') AS task,
    a.score AS score_a,
    b.score AS score_b,
    a.score - b.score AS d,
    -- d in fixed point (units of 2^-40): integer sums are exact in any order, so a rebuild
    -- gives bit-identical intervals however DuckDB splits the work between threads.
    CAST(round((a.score - b.score) * 1099511627776) AS BIGINT) AS d_fixed,
    CAST('0x' || left(md5(CAST($seed AS VARCHAR) || ':' || a.qid), 8) AS UBIGINT) AS qkey,
    -- run A's patient of the question, as the task labels are run A's
    a.cluster
FROM cmp_pairs AS p
JOIN cmp_question_scores AS a ON a.run_id = p.run_a
JOIN cmp_question_scores AS b ON b.run_id = p.run_b AND b.qid = a.qid;
