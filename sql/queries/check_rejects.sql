-- `etl check`: the first rejects, errors first, in file and line order.
SELECT path, line_no, severity, error
FROM rejects
ORDER BY severity, path, line_no
LIMIT $limit;
