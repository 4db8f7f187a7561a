-- One board ($benchmark, $mode) scored by one chosen scorer ($scorer) instead of each run's
-- default score source. Per result the unified score of leaderboard_result_scores (f1 for
-- set rows, correct for llm_judge rows, 0 for incomplete rows; error and incomplete results
-- 0); per question the mean over its runs; per run the mean over questions (micro). With
-- $shared only the questions every run of the board has a row of that scorer for count.
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
board AS (
    SELECT count(DISTINCT run_id) AS n_runs FROM leaderboard
    WHERE benchmark = $benchmark AND mode = $mode
),
shared_questions AS (
    SELECT qid FROM per_question GROUP BY qid
    HAVING count(DISTINCT run_id) = (SELECT n_runs FROM board)
),
kept AS (
    SELECT * FROM per_question
    WHERE NOT $shared OR qid IN (SELECT qid FROM shared_questions)
),
per_run AS (
    SELECT run_id, count(*) AS n_questions, avg(score) AS score FROM kept GROUP BY run_id
)
SELECT
    l.benchmark,
    l.mode,
    rank() OVER (ORDER BY p.score DESC NULLS LAST) AS rank,
    l.model,
    coalesce(p.n_questions, 0) AS n_questions,
    p.score,
    CAST($scorer AS VARCHAR) AS score_source,
    l.score AS default_score,
    l.score_source AS default_score_source,
    l.display_name,
    l.run_id
FROM leaderboard AS l
LEFT JOIN per_run AS p ON p.run_id = l.run_id
WHERE l.benchmark = $benchmark AND l.mode = $mode
ORDER BY rank, l.run_id
