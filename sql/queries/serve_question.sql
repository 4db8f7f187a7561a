-- One question ($qid, of $benchmark; NULL: of any benchmark, e.g. asked from an archived run
-- whose benchmark is not known): its text, gold and task, from any run's result.
SELECT
    qid, benchmark, task_group, task,
    arg_min(question, run_id) AS question,
    arg_min(gold, run_id) AS gold,
    count(DISTINCT run_id) AS n_runs
FROM results
WHERE ($benchmark IS NULL OR benchmark = $benchmark) AND qid = $qid
GROUP BY qid, benchmark, task_group, task
ORDER BY task
