-- etl report: current runs with missing, failed or incomplete questions.
SELECT
    run_id, benchmark, mode, split, model, expected_questions, present, missing, errors,
    incomplete
FROM coverage
WHERE NOT coalesce(is_archived, false)
    AND (coalesce(missing, 0) > 0 OR errors > 0 OR incomplete > 0)
ORDER BY run_id
