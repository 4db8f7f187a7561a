-- Leaderboard runs a name can mean: the run id $name itself, or a run of the model $model
-- (the canonical key etl/filters.py resolved the name to: key, display name or alias; NULL
-- when it names no model), within $benchmark / $mode when given. With neither $name nor
-- $model: every leaderboard run there (what an unknown name is compared with).
SELECT DISTINCT l.run_id, l.benchmark, l.mode, l.model
FROM leaderboard AS l
WHERE (l.run_id = $name OR l.model = $model OR ($name IS NULL AND $model IS NULL))
    AND ($benchmark IS NULL OR l.benchmark = $benchmark)
    AND ($mode IS NULL OR l.mode = $mode)
ORDER BY l.run_id
