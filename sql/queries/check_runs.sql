-- `etl check`: every run of the tree, with its results and the questions its split expects.
SELECT run_id, n_results, expected_questions
FROM runs
ORDER BY run_id;
