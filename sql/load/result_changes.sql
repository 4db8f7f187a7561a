-- What changes in results and their child rows, from the ranking of result_copies.sql and
-- the rows the database holds (nothing in a cold build):
--   load_keys: the preferred copies to insert: new results, results whose preferred copy
--              moved (another file or a later record), results of re-staged files;
--   drop_keys: the loaded results to delete: gone, their preferred copy moved, or their file
--              re-staged (dropped_files: its rows may have other content now);
-- and kept results whose number of copies changed get the new count.
CREATE OR REPLACE TEMP TABLE new_winners AS
SELECT run_id, qid, run_index, file_id, rec_no, part, n_copies
FROM result_copies
WHERE pick = 1;

CREATE OR REPLACE TEMP TABLE drop_keys AS
SELECT o.run_id, o.qid, o.run_index, o.file_id, o.rec_no
FROM results AS o
LEFT JOIN new_winners AS n
    ON n.run_id = o.run_id AND n.qid = o.qid AND n.run_index = o.run_index
WHERE o.run_id IN (SELECT run_id FROM load_runs)
  AND (n.file_id IS NULL OR n.file_id <> o.file_id OR n.rec_no <> o.rec_no
       OR o.file_id IN (SELECT file_id FROM dropped_files));

CREATE OR REPLACE TEMP TABLE load_keys AS
SELECT n.*
FROM new_winners AS n
WHERE NOT EXISTS (
    SELECT 1 FROM results AS o
    WHERE o.run_id = n.run_id AND o.qid = n.qid AND o.run_index = n.run_index
) OR EXISTS (
    SELECT 1 FROM drop_keys AS d
    WHERE d.run_id = n.run_id AND d.qid = n.qid AND d.run_index = n.run_index
);

UPDATE results SET n_copies = n.n_copies
FROM new_winners AS n
WHERE results.run_id = n.run_id AND results.qid = n.qid AND results.run_index = n.run_index
  AND results.n_copies IS DISTINCT FROM n.n_copies;

-- Child rows carry the key of their result; scores computed from a result also its record.
DELETE FROM messages AS t USING drop_keys AS d
WHERE t.run_id = d.run_id AND t.qid = d.qid AND t.run_index = d.run_index;
DELETE FROM tool_calls AS t USING drop_keys AS d
WHERE t.run_id = d.run_id AND t.qid = d.qid AND t.run_index = d.run_index;
DELETE FROM images AS t USING drop_keys AS d
WHERE t.run_id = d.run_id AND t.qid = d.qid AND t.run_index = d.run_index;
DELETE FROM call_failures AS t USING drop_keys AS d
WHERE t.run_id = d.run_id AND t.qid = d.qid AND t.run_index = d.run_index;
DELETE FROM result_checks AS t USING drop_keys AS d
WHERE t.run_id = d.run_id AND t.qid = d.qid AND t.run_index = d.run_index;
DELETE FROM token_usage AS t USING drop_keys AS d
WHERE t.run_id = d.run_id AND t.qid = d.qid AND t.run_index = d.run_index;
DELETE FROM question_scores AS t USING drop_keys AS d
WHERE t.file_id = d.file_id AND t.rec_no = d.rec_no;
DELETE FROM results AS t USING drop_keys AS d
WHERE t.run_id = d.run_id AND t.qid = d.qid AND t.run_index = d.run_index;
