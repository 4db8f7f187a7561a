-- The attempts (run_index) one run ($run) made at one question ($qid), first first.
SELECT run_index FROM results WHERE run_id = $run AND qid = $qid ORDER BY run_index
