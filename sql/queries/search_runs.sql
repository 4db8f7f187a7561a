-- The runs a search looks in: current runs (every run with $archived), narrowed by benchmark,
-- mode and model (its canonical key: etl/search.py resolves a display name or alias first)
-- when given.
SELECT r.run_id
FROM runs AS r
WHERE ($benchmark IS NULL OR r.benchmark = $benchmark)
    AND ($mode IS NULL OR r.mode = $mode)
    AND ($model IS NULL OR r.model = $model)
    AND ($archived OR NOT coalesce(r.is_archived, false))
ORDER BY r.run_id
