-- One run ($run): what the runs table says of it, with its leaderboard score when it has one.
SELECT
    r.run_id, r.benchmark, r.mode, r.split, r.model,
    coalesce(m.display_name, r.model) AS display_name,
    r.is_archived, r.archive_name, r.n_results, r.expected_questions,
    l.score, l.ci_low, l.ci_high, l.score_source
FROM runs AS r
LEFT JOIN models AS m ON m.model = r.model
LEFT JOIN leaderboard AS l ON l.run_id = r.run_id
WHERE r.run_id = $run
