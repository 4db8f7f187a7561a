-- etl report: the last ingest (where the numbers come from).
SELECT ingest_id, finished_at, root, n_files, n_results, n_rejects
FROM ingests
ORDER BY finished_at DESC NULLS LAST
LIMIT 1
