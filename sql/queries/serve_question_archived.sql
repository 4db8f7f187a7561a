-- The archived attempts of one question ($benchmark, $qid): results of _archive runs with
-- the same qid and the F1 archive lineage compares them by (view result_answers; what
-- superseded each archive comes from the explorer's memo of archive_lineage).
SELECT
    r.run_id, ru.archive_name, r.model, r.mode, r.split, r.run_index, r.status, r.prediction,
    a.f1 AS lineage_f1
FROM results AS r
JOIN runs AS ru ON ru.run_id = r.run_id
LEFT JOIN result_answers AS a
    ON a.run_id = r.run_id AND a.qid = r.qid AND a.run_index = r.run_index
    AND a.qid = $qid -- bound, so the scan of question_scores is filtered
WHERE ru.is_archived AND r.qid = $qid AND ($benchmark IS NULL OR r.benchmark = $benchmark OR r.benchmark IS NULL)
ORDER BY ru.archive_name, r.run_index
