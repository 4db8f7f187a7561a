-- The shared questions of each pair of one batch (cmp_pairs.batch = $batch), with the hash
-- key of the question that draws its bootstrap weights and its patient (cluster).
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
JOIN cmp_question_scores AS b ON b.run_id = p.run_b AND b.qid = a.qid
WHERE p.batch = $batch;
