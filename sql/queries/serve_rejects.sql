-- What was not loaded as is, per file and line ($path: one file, or NULL for all; $limit rows
-- from $offset): rejects with the file's kind and run.
SELECT r.path, r.line_no, r.severity, r.error, substr(r.excerpt, 1, 300) AS excerpt,
       f.kind, f.run_id, r.ingest_id
FROM rejects AS r
LEFT JOIN files AS f ON f.file_id = r.file_id
WHERE $path IS NULL OR r.path = $path
ORDER BY r.path, r.line_no NULLS FIRST
LIMIT $limit OFFSET $offset
