-- Warehouse.runs(): the runs in $runs (api_scope_runs.sql) with the model's display name and,
-- for a run on a leaderboard, its default scorer (board_scorer; NULL: on no leaderboard).
SELECT
    r.*,
    coalesce(m.display_name, r.model) AS display_name,
    l.scorer AS board_scorer
FROM runs AS r
LEFT JOIN models AS m ON m.model = r.model
LEFT JOIN leaderboard_runs AS l ON l.run_id = r.run_id
WHERE r.run_id IN (SELECT unnest($runs))
ORDER BY r.run_id
