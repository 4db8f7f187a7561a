-- The cluster of each question of each run (table question_clusters): the question's
-- patient, results.subject_id (or subject_id_text when the record's id is not an integer),
-- else the qid itself (a question of unknown patient is its own cluster). Every question a
-- board scores has one (board_results: a scored-only run's questions too, which have no
-- results and so no known patient). Questions of one patient are not independent; the
-- clustered standard errors of docs/STATISTICS.md sum their deviations per cluster. For the
-- runs the load re-ranked (load_runs).
INSERT INTO question_clusters
SELECT
    b.run_id,
    b.qid,
    CASE
        WHEN min(r.subject_id) IS NOT NULL THEN 'subject_id ' || CAST(min(r.subject_id) AS VARCHAR)
        WHEN min(r.subject_id_text) IS NOT NULL THEN 'subject_id ' || min(r.subject_id_text)
        ELSE 'qid ' || b.qid
    END AS cluster
FROM board_results AS b
LEFT JOIN results AS r ON r.run_id = b.run_id AND r.qid = b.qid AND r.run_index = b.run_index
WHERE b.run_id IN (SELECT run_id FROM load_runs)
GROUP BY b.run_id, b.qid;
