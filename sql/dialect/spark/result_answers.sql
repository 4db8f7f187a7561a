-- Spark form of result_answers (sql/60_lineage.sql): DuckDB's from_json(x, '["VARCHAR"]'),
-- list_distinct and list_sort are from_json(x, 'ARRAY<STRING>'), array_distinct and
-- array_sort here; to_json writes the same compact JSON array text (["a","b"]).
CREATE OR REPLACE VIEW result_answers AS
SELECT
    res.run_id,
    res.qid,
    res.run_index,
    res.task,
    res.status,
    res.prediction,
    TO_JSON(ARRAY_SORT(ARRAY_DISTINCT(
        FROM_JSON(COALESCE(res.prediction_items, '[]'), 'ARRAY<STRING>')
    ))) AS answer,
    qs.f1
FROM results AS res
LEFT JOIN question_scores AS qs
    ON qs.run_id = res.run_id AND qs.qid = res.qid AND qs.run_index = res.run_index
    AND qs.scorer = 'set_f1'
