-- etl report: current runs, and runs with the archived ones.
SELECT count(*) FILTER (WHERE NOT coalesce(is_archived, false)), count(*)
FROM coverage
