-- Append-only growth (etl/segments.py): the unterminated last line of a results file that a
-- writer may still be on is neither loaded nor rejected while the file keeps changing.

ALTER TABLE files ADD COLUMN n_in_progress BIGINT;

COMMENT ON COLUMN files.n_in_progress IS 'Unterminated last lines (0 or 1) held back as in progress: the results file changed less than the quiet period (etl ingest --in-progress-seconds) before the ingest, so its writer may still be writing the line. Not loaded and not in rejects; loaded once complete, or judged like any line (a truncated line is a reject) once the file is quiet. 0 when there is none; NULL for files that are not loaded.';
