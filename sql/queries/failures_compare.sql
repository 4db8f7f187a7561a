-- Warehouse.comparison_failures() / etl compare --by-failure: the questions run $run_a lost
-- and run $run_b won (B's board score of the question above A's, by more than 1e-12, as
-- compare_questions.sql calls it b_better), grouped by each failure label A's attempts at the
-- question carry (result_failures; a question counts under each of its labels): how many
-- questions, the points B won on them, and the first of them by points.
WITH a AS (
    SELECT qid, score FROM leaderboard_question_scores WHERE run_id = $run_a
),
b AS (
    SELECT qid, score FROM leaderboard_question_scores WHERE run_id = $run_b
),
lost AS (
    SELECT a.qid, b.score - a.score AS diff
    FROM a JOIN b ON b.qid = a.qid
    WHERE b.score - a.score > 1e-12
),
labels AS (
    SELECT DISTINCT qid, failure
    FROM result_failures
    WHERE run_id = $run_a
)
SELECT
    l.failure,
    f.title,
    count(*) AS n_questions,
    sum(lost.diff) AS points,
    arg_max(lost.qid, lost.diff) AS top_qid,
    (SELECT count(*) FROM lost) AS n_lost
FROM lost
JOIN labels AS l ON l.qid = lost.qid
LEFT JOIN failures AS f ON f.failure = l.failure
GROUP BY l.failure, f.title, f.position
ORDER BY count(*) DESC, coalesce(f.position, 1000), l.failure
