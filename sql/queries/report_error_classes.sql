-- etl report: results per error class of each leaderboard run.
SELECT
    c.benchmark, c.mode, c.model, c.error_class, CAST(sum(c.n_results) AS BIGINT) AS n_results
FROM error_class_counts AS c
JOIN leaderboard AS l ON l.run_id = c.run_id
GROUP BY c.benchmark, c.mode, c.model, c.error_class
ORDER BY c.benchmark, c.mode, c.model, c.error_class
