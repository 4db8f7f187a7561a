-- The paper's tables as one board (the explorer's /paper page and etl report): per benchmark,
-- model and cell, the agentic (ClinSeek) and one-shot cells of paper_table side by side with
-- their paper_mode_delta; in_paper_table marks what the paper prints.
WITH cells AS (
    SELECT
        benchmark, model, any_value(display_name) AS display_name, level, name,
        any_value(parent) AS parent, bool_or(in_paper_table) AS in_paper_table,
        max(n) FILTER (WHERE mode = 'agentic') AS agentic_n,
        max(score) FILTER (WHERE mode = 'agentic') AS agentic_score,
        max(ci_low) FILTER (WHERE mode = 'agentic') AS agentic_ci_low,
        max(ci_high) FILTER (WHERE mode = 'agentic') AS agentic_ci_high,
        max(n) FILTER (WHERE mode = 'oneshot') AS oneshot_n,
        max(score) FILTER (WHERE mode = 'oneshot') AS oneshot_score,
        max(ci_low) FILTER (WHERE mode = 'oneshot') AS oneshot_ci_low,
        max(ci_high) FILTER (WHERE mode = 'oneshot') AS oneshot_ci_high,
        any_value(scorer) AS scorer,
        any_value(task_source) AS task_source
    FROM paper_table
    GROUP BY benchmark, model, level, name
)
SELECT c.*, d.delta, d.ci_low AS delta_ci_low, d.ci_high AS delta_ci_high, d.n AS delta_n
FROM cells AS c
LEFT JOIN paper_mode_delta AS d
    ON d.benchmark = c.benchmark AND d.model = c.model AND d.level = c.level
   AND d.name = c.name
ORDER BY c.benchmark,
         CASE c.level WHEN 'overall' THEN 0 WHEN 'group' THEN 1 WHEN 'semantic' THEN 2 ELSE 3 END,
         c.parent, c.name, coalesce(c.agentic_score, c.oneshot_score) DESC NULLS LAST, c.model
