-- Every score row of one result ($run, $qid, $run_index), one per scorer (question_scores);
-- value and raw_value: a score of an Inspect AI log, as a number and as written.
SELECT scorer, task, precision, recall, f1, exact_match, correct, route, judge_subtype,
       judge_match, n_pred, n_gold, status, line_no, value, raw_value
FROM question_scores
WHERE run_id = $run AND qid = $qid AND run_index = $run_index
ORDER BY scorer
