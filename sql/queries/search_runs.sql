-- The runs a search looks in: current runs (every run with $archived), narrowed by benchmark,
-- mode and model (a model key, display name or alias) when given.
SELECT r.run_id
FROM runs AS r
LEFT JOIN models AS m ON m.model = r.model
WHERE ($benchmark IS NULL OR r.benchmark = $benchmark)
    AND ($mode IS NULL OR r.mode = $mode)
    AND ($model IS NULL OR r.model = $model OR m.display_name = $model
         OR r.model IN (SELECT a.model FROM model_aliases AS a WHERE a.alias = lower($model)))
    AND ($archived OR NOT coalesce(r.is_archived, false))
ORDER BY r.run_id
