-- The previous and next result of one run around ($qid, $run_index), in (task_group, task,
-- qid, run_index) order: the targets of the viewer's keyboard navigation.
WITH ordered AS (
    SELECT
        qid, run_index,
        lag(qid) OVER w AS prev_qid, lag(run_index) OVER w AS prev_run_index,
        lead(qid) OVER w AS next_qid, lead(run_index) OVER w AS next_run_index,
        row_number() OVER w AS position, count(*) OVER () AS n_results
    FROM results
    WHERE run_id = $run
    WINDOW w AS (ORDER BY task_group, task, qid, run_index)
)
SELECT prev_qid, prev_run_index, next_qid, next_run_index, position, n_results
FROM ordered
WHERE qid = $qid AND run_index = $run_index
