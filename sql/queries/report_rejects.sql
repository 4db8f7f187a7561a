-- etl report: rejected lines per severity.
SELECT severity, count(*)
FROM rejects
GROUP BY severity
ORDER BY severity
