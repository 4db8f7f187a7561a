-- Trino form of result_answers (sql/60_lineage.sql): Trino has no from_json / to_json; the
-- JSON text is parsed with json_parse and cast to array(varchar), and the sorted distinct
-- array is cast back to JSON and written by json_format (compact: ["a","b"]).
CREATE OR REPLACE VIEW result_answers AS
SELECT
    res.run_id,
    res.qid,
    res.run_index,
    res.task,
    res.status,
    res.prediction,
    json_format(CAST(array_sort(array_distinct(
        CAST(json_parse(coalesce(res.prediction_items, '[]')) AS array(varchar))
    )) AS json)) AS answer,
    qs.f1
FROM results AS res
LEFT JOIN question_scores AS qs
    ON qs.run_id = res.run_id AND qs.qid = res.qid AND qs.run_index = res.run_index
    AND qs.scorer = 'set_f1'
