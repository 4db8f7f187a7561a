-- The runs a notebook call reads (etl/api.py: results, scores, runs, coverage): current runs
-- unless $archived adds the runs under _archive/, of the splits the leaderboard is made of
-- (its full splits; smoke and partial splits left out) unless $split names one or is 'all';
-- narrowed by $benchmark, $mode and $model (a canonical key) when given.
SELECT r.run_id
FROM runs AS r
WHERE ($archived OR NOT coalesce(r.is_archived, false))
    AND CASE
        WHEN $split IS NULL THEN r.split IN (SELECT split FROM leaderboard_runs)
        WHEN $split = 'all' THEN true
        ELSE r.split = $split
    END
    AND ($benchmark IS NULL OR r.benchmark = $benchmark)
    AND ($mode IS NULL OR r.mode = $mode)
    AND ($model IS NULL OR r.model = $model)
ORDER BY r.run_id
