-- Leaderboard runs a name can mean: the run id itself, or a run of the model it names
-- (canonical key, display name or any alias), within $benchmark / $mode when given.
SELECT DISTINCT l.run_id, l.benchmark, l.mode, l.model
FROM leaderboard AS l
LEFT JOIN models AS m ON m.model = l.model
LEFT JOIN model_aliases AS a ON a.model = l.model
WHERE (l.run_id = $name OR l.model = $name OR lower(m.display_name) = lower($name)
       OR a.alias = lower($name))
    AND ($benchmark IS NULL OR l.benchmark = $benchmark)
    AND ($mode IS NULL OR l.mode = $mode)
ORDER BY l.run_id
