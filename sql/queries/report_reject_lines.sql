-- etl report: the first rejected lines (errors only).
SELECT path, line_no, severity, error
FROM rejects
WHERE severity = 'error'
ORDER BY path, line_no
LIMIT 50
