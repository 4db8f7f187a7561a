-- The run of each Inspect AI log (one run per log, etl/pipeline/discover.py) takes the keys
-- its log holds, as the extractor read them into inspect_logs (etl/extract/inspect_logs.py):
-- benchmark (the task name, or the benchmark the user mapped it to), split (full<n> for a
-- whole dataset, limit<n> for a chosen part), model and the questions it was given; mode
-- agentic when any of its samples was offered tools (results.mode of each sample), else
-- oneshot (for a log without samples yet: whether its plan gives tools). Every load: runs is
-- rewritten from the walk of the tree, which cannot see inside a log.
UPDATE runs SET
    benchmark = l.benchmark,
    split = l.split,
    model = l.model,
    model_dir = l.inspect_model,
    expected_questions = l.n_samples,
    mode = CASE WHEN coalesce(m.any_agentic, l.tools_in_plan) THEN 'agentic' ELSE 'oneshot' END
FROM inspect_logs AS l
LEFT JOIN (SELECT run_id, bool_or(mode = 'agentic') AS any_agentic
           FROM results GROUP BY run_id) AS m ON m.run_id = l.run_id
WHERE runs.run_id = l.run_id;

