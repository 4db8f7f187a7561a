-- etl report: agentic minus one-shot per task group and task, paired (mode_delta_paired).
SELECT
    benchmark, model, scope, task_group, task, n_shared, delta, ci_low, ci_high, p_adjusted,
    small_n, mde_80, n_needed, not_detectable
FROM mode_delta_paired
WHERE scope IN ('group', 'task')
ORDER BY benchmark, scope, task_group, task, model
