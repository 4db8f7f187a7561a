-- etl report: summary numbers per reconciliation status.
SELECT status, count(*)
FROM summary_reconciliation
GROUP BY status
ORDER BY status
