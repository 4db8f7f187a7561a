-- One file of the tree ($path, its logical path): what the ingest made of it (files).
SELECT path, kind, run_id, loaded, copy_rank, size_bytes, sha256, n_lines, n_rows,
       n_rejected, n_repaired, n_duplicates, n_in_progress
FROM files
WHERE path = $path
