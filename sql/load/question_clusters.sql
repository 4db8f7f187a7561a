-- The cluster of each question of each run (table question_clusters): the question's
-- patient, results.subject_id (or subject_id_text when the record's id is not an integer),
-- else the qid itself (a question of unknown patient is its own cluster). Questions of one
-- patient are not independent; the clustered standard errors of docs/STATISTICS.md sum
-- their deviations per cluster. For the runs the load re-ranked (load_runs).
INSERT INTO question_clusters
SELECT
    run_id,
    qid,
    CASE
        WHEN min(subject_id) IS NOT NULL THEN 'subject_id ' || CAST(min(subject_id) AS VARCHAR)
        WHEN min(subject_id_text) IS NOT NULL THEN 'subject_id ' || min(subject_id_text)
        ELSE 'qid ' || qid
    END AS cluster
FROM results
WHERE run_id IN (SELECT run_id FROM load_runs)
GROUP BY run_id, qid;
