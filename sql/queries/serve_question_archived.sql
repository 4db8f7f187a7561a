-- The archived attempts of one question ($benchmark, $qid): results of _archive runs with
-- the same qid and the project's set_f1 score (what superseded each archive comes from the
-- explorer's memo of archive_lineage).
SELECT
    r.run_id, ru.archive_name, r.model, r.mode, r.run_index, r.status, r.prediction,
    s.f1 AS set_f1
FROM results AS r
JOIN runs AS ru ON ru.run_id = r.run_id
LEFT JOIN question_scores AS s
    ON s.run_id = r.run_id AND s.qid = r.qid AND s.run_index = r.run_index
    AND s.scorer = 'set_f1'
WHERE ru.is_archived AND r.qid = $qid AND (r.benchmark = $benchmark OR r.benchmark IS NULL)
ORDER BY ru.archive_name, r.run_index
