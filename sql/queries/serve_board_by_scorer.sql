-- One board ($benchmark, $mode) scored by one chosen scorer ($scorer) instead of each run's
-- default score source. Per result the unified score of leaderboard_result_scores (f1 for
-- set rows, correct for llm_judge rows, 0 for incomplete rows; error and incomplete results
-- 0); per question the mean over its runs; per run the mean over questions (micro). With
-- $shared only the questions all $n_runs runs of the board have a row of that scorer for
-- count. The explorer joins the result to its memo of the board (model, default score).
WITH per_result AS (
    SELECT
        q.run_id, q.qid, q.run_index,
        avg(
            CASE
                WHEN q.route = 'llm_judge'
                    THEN coalesce(q.correct, CAST(q.judge_match AS DOUBLE), 0.0)
                WHEN q.route = 'incomplete' THEN 0.0
                ELSE coalesce(q.f1, q.correct, 0.0)
            END
        ) AS source_score
    FROM question_scores AS q
    JOIN leaderboard_runs AS lr ON lr.run_id = q.run_id
    WHERE lr.benchmark = $benchmark AND lr.mode = $mode AND q.scorer = $scorer
    GROUP BY q.run_id, q.qid, q.run_index
),
per_question AS (
    SELECT
        p.run_id, p.qid,
        avg(CASE WHEN r.status IN ('error', 'incomplete') THEN 0.0 ELSE p.source_score END)
            AS score
    FROM per_result AS p
    JOIN results AS r ON r.run_id = p.run_id AND r.qid = p.qid AND r.run_index = p.run_index
    GROUP BY p.run_id, p.qid
),
shared_questions AS (
    SELECT qid FROM per_question GROUP BY qid
    HAVING count(DISTINCT run_id) = $n_runs
),
kept AS (
    SELECT * FROM per_question
    WHERE NOT $shared OR qid IN (SELECT qid FROM shared_questions)
),
per_run AS (
    SELECT run_id, count(*) AS n_questions, avg(score) AS score FROM kept GROUP BY run_id
)
SELECT run_id, n_questions, score, CAST($scorer AS VARCHAR) AS score_source
FROM per_run
