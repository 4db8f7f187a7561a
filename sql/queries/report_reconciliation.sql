-- etl report: the authors' summary numbers the rows do not reproduce.
SELECT
    r.run_id, r.scoring, r.task, r.metric, r.reported, r.recomputed, r.abs_diff, r.status
FROM summary_reconciliation AS r
WHERE r.status IN ('mismatch', 'damaged_source')
ORDER BY r.status, r.run_id, r.metric
