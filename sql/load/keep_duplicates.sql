-- After files is rewritten (etl/load.py): a loaded file whose run keeps its rows keeps its
-- duplicate count; files of the runs this load re-ranks (load_runs) are counted again.
UPDATE files SET n_duplicates = l.n_duplicates
FROM loaded_files AS l
WHERE files.file_id = l.file_id
  AND files.loaded
  AND files.run_id IS NOT NULL
  AND files.run_id NOT IN (SELECT run_id FROM load_runs);
