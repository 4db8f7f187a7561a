-- Warehouse.coverage(): the coverage rows (expected, present, missing, error and incomplete
-- questions) of the runs in $runs (api_scope_runs.sql).
SELECT *
FROM coverage
WHERE run_id IN (SELECT unnest($runs))
ORDER BY run_id
