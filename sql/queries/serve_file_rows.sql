-- The rows one file ($path) gave: its results (one per question attempt it holds as the
-- preferred copy) and the score rows read from it (question_scores), by line.
WITH f AS (SELECT file_id, run_id FROM files WHERE path = $path)
SELECT r.line_no, 'result' AS row_kind, r.qid, r.run_index, r.task, r.status,
       NULL AS scorer, NULL AS route, NULL AS f1, true AS has_result
FROM results AS r
JOIN f ON f.file_id = r.file_id AND f.run_id = r.run_id
UNION ALL
SELECT q.line_no, 'score' AS row_kind, q.qid, q.run_index, q.task, q.status, q.scorer,
       q.route, q.f1,
       EXISTS (SELECT 1 FROM results AS x WHERE x.run_id = q.run_id AND x.qid = q.qid
               AND x.run_index = q.run_index) AS has_result
FROM question_scores AS q
JOIN f ON f.file_id = q.file_id AND f.run_id = q.run_id
WHERE q.scorer IN (SELECT scorer FROM scorers WHERE question_rows = 'authors_file')
ORDER BY line_no, row_kind, scorer
