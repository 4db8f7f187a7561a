-- The attempts (run_index) of question $qid in run $run, first first: a page asked for no
-- attempt (or for attempt 0, which the first versions of the explorer linked) shows the first.
SELECT run_index FROM results
WHERE run_id = $run AND qid = $qid
ORDER BY run_index
