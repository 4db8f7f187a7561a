-- One run ($run): what the runs table says of it (its leaderboard score comes from the
-- explorer's memo of leaderboard_ranked).
SELECT
    r.run_id, r.benchmark, r.mode, r.split, r.model,
    coalesce(m.display_name, r.model) AS display_name,
    r.is_archived, r.archive_name, r.n_results, r.expected_questions
FROM runs AS r
LEFT JOIN models AS m ON m.model = r.model
WHERE r.run_id = $run
