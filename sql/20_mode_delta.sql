-- Agentic minus one-shot, per benchmark, model and task group, plus an 'overall' row per
-- model: the comparison the paper reports. Built on leaderboard / leaderboard_by_group, so
-- the scores are the same numbers (same scorer choice, micro means).

CREATE OR REPLACE VIEW mode_delta AS
WITH scores AS (
    SELECT benchmark, mode, model, task_group, n_questions, score
    FROM leaderboard_by_group
    UNION ALL
    SELECT benchmark, mode, model, 'overall' AS task_group, n_questions, score
    FROM leaderboard
),
agentic AS (
    SELECT benchmark, model, task_group, n_questions, score FROM scores WHERE mode = 'agentic'
),
oneshot AS (
    SELECT benchmark, model, task_group, n_questions, score FROM scores WHERE mode = 'oneshot'
)
SELECT
    coalesce(a.benchmark, o.benchmark) AS benchmark,
    coalesce(a.model, o.model) AS model,
    coalesce(a.task_group, o.task_group) AS task_group,
    a.score AS agentic_score,
    o.score AS oneshot_score,
    a.score - o.score AS delta,
    a.n_questions AS agentic_n_questions,
    o.n_questions AS oneshot_n_questions
FROM agentic AS a
FULL OUTER JOIN oneshot AS o
    ON a.benchmark = o.benchmark
    AND a.model = o.model
    AND a.task_group IS NOT DISTINCT FROM o.task_group;

COMMENT ON VIEW mode_delta IS 'Agentic minus one-shot score per (benchmark, model, task_group), with task_group = ''overall'' for the whole run: scores are leaderboard / leaderboard_by_group scores (micro means of per-question scores by each run''s default scorer, leaderboard_runs.score_source: authors_text, the authors'' score_text.py, for text benchmarks; the authors'' unified rescored / scored rows for mm_bench, set_f1 where a run has neither). The paper''s own deltas (its scoring rule, unpaired differences of its table cells, paired Student-t intervals) are in paper_mode_delta. A side missing in one mode keeps its row with the other score NULL and delta NULL. No interval.';
COMMENT ON COLUMN mode_delta.delta IS 'agentic_score - oneshot_score (fraction points); NULL when either side is missing.';
COMMENT ON COLUMN mode_delta.benchmark IS 'Benchmark of the two runs compared.';
COMMENT ON COLUMN mode_delta.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN mode_delta.task_group IS 'Task group (risk_prediction / decision_making, or the multimodal task family), or overall for the whole run.';
COMMENT ON COLUMN mode_delta.agentic_score IS 'Score of the agentic run (leaderboard / leaderboard_by_group), a fraction in [0, 1]; NULL when there is no agentic run.';
COMMENT ON COLUMN mode_delta.oneshot_score IS 'Score of the one-shot run (leaderboard / leaderboard_by_group), a fraction in [0, 1]; NULL when there is no one-shot run.';
COMMENT ON COLUMN mode_delta.agentic_n_questions IS 'Distinct questions behind agentic_score; NULL when there is no agentic run.';
COMMENT ON COLUMN mode_delta.oneshot_n_questions IS 'Distinct questions behind oneshot_score; NULL when there is no one-shot run.';
