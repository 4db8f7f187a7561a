-- Every staged copy of every result of the runs this load re-ranks (load_runs), ranked: the
-- preferred copy (pick = 1) is the one from the most preferred file kind (copy_rank:
-- merged_unique, top-level results, region shard, results_steal_NN, steal_NN/results),
-- then path order, then the LAST record in that file (a resumed writer appends the newer
-- attempt). `part` is the staged Parquet file the copy is in (its cache directory holds the
-- copy's messages, tool calls, images and scores). Only the key columns are read.
CREATE OR REPLACE TEMP TABLE result_copies AS
SELECT s.run_id, s.qid, s.run_index, s.file_id, s.rec_no, s.filename AS part,
       row_number() OVER (PARTITION BY s.run_id, s.qid, s.run_index
                          ORDER BY f.copy_rank, f.path, s.rec_no DESC) AS pick,
       count(*) OVER (PARTITION BY s.run_id, s.qid, s.run_index) AS n_copies
FROM read_parquet($files, filename = true) AS s
JOIN stage_files AS f ON f.file_id = s.file_id;
