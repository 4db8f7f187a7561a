-- etl report: agentic minus one-shot per model and task group (mode_delta).
SELECT benchmark, model, task_group, agentic_score, oneshot_score, delta
FROM mode_delta
ORDER BY benchmark, task_group, model
