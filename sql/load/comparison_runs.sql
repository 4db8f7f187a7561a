-- The runs the paired comparisons of this load read (etl/comparison.py): every run that can
-- form a pair with a run the load re-ranked (load_runs), that is one of its benchmark and
-- either of its mode (the model pairs) or of its model (the agentic - oneshot pairs of
-- comparison_inputs.sql). A superset of the pairs' runs is harmless (cmp_pairs keeps only
-- the pairs with a re-ranked run); read as a bound list, so the filter reaches the scans of
-- the leaderboard views (the filter on the benchmark read every board of it: 0.27 s of CPU
-- of an append of one record on a bench tree, against 0.05 s).
SELECT DISTINCT r.run_id
FROM runs AS r
JOIN runs AS l
    ON l.benchmark = r.benchmark AND (l.mode = r.mode OR l.model = r.model)
WHERE l.run_id IN (SELECT run_id FROM load_runs)
ORDER BY r.run_id;
