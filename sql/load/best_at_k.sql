-- Per-run F1 values of every question, for best@k (etl/best_at_k.py): authors_text rows of
-- the preferred result copies, in run order. Only runs where some question has 2+ runs, of
-- the runs the load re-ranked (load_runs: every run in a cold build).
WITH per_question AS (
    SELECT run_id, qid, list(f1 ORDER BY run_index) AS f1s
    FROM question_scores
    WHERE scorer = $scorer AND run_index IS NOT NULL
      AND run_id IN (SELECT run_id FROM load_runs)
    GROUP BY run_id, qid
)
SELECT run_id, qid, f1s
FROM per_question
QUALIFY max(len(f1s)) OVER (PARTITION BY run_id) > 1
ORDER BY run_id, qid;
