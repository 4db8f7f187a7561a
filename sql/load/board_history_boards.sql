-- The boards (benchmark, mode) whose overall rows an update recomputes (etl/board_history.py):
-- the boards of the runs the load re-ranked (load_runs), before and after the load, and of
-- every run whose catalog row changed (appeared, went, or any column but n_results, which
-- the load counts again, moved). Every other input of view leaderboard is a row of a run
-- (results, scores, clusters, scorers of Inspect logs: re-ranked with it) or a table written
-- by a cold build alone; the table scorers, which the Inspect step rewrites, is compared as
-- a whole by the caller.
SELECT DISTINCT benchmark, mode
FROM (
    SELECT benchmark, mode FROM runs WHERE run_id IN (SELECT run_id FROM load_runs)
    UNION ALL
    SELECT benchmark, mode FROM loaded_runs WHERE run_id IN (SELECT run_id FROM load_runs)
    UNION ALL
    SELECT benchmark, mode FROM (
        SELECT * EXCLUDE (n_results) FROM runs
        EXCEPT
        SELECT * EXCLUDE (n_results) FROM loaded_runs
    )
    UNION ALL
    SELECT benchmark, mode FROM (
        SELECT * EXCLUDE (n_results) FROM loaded_runs
        EXCEPT
        SELECT * EXCLUDE (n_results) FROM runs
    )
)
ORDER BY benchmark, mode;
