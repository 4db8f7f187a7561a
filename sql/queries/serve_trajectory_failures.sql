-- The failure labels of one result ($run, $qid, attempt $run_index) for the chips of the
-- trajectory and side-by-side pages: each labelled call (msg_idx, call_idx NOT NULL) and each
-- label of the whole result (result_failures: msg_idx NULL).
SELECT msg_idx, call_idx, failure, detail, NULL AS n_calls
FROM call_failures
WHERE run_id = $run AND qid = $qid AND run_index = $run_index
UNION ALL
SELECT NULL, NULL, failure, detail, n_calls
FROM result_failures
WHERE run_id = $run AND qid = $qid AND run_index = $run_index
ORDER BY msg_idx NULLS FIRST, call_idx, failure
