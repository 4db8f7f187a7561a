-- Leaderboard views. The chain, each step a view so every number traces to its rows:
--   leaderboard_runs             current runs of full splits, and which scorer scores them
--   leaderboard_result_scores    one score per result (run_id, qid, run_index)
--   leaderboard_question_scores  per question: mean over its runs
--   leaderboard / leaderboard_by_task / leaderboard_by_group: micro means over questions
-- Score source: text benchmarks use the project's set_f1 rows (f1). mm_bench uses the
-- authors' per-question rows with the authors' own fallback, whatever the mode: rescored
-- (rescored.jsonl) when the run has any, else scored (scored.jsonl), as the authors' analysis
-- does (UCSC-VLAA/ClinSeekAgent openresearcher_ehr/analysis/findings_20260427/
-- build_figures_and_report.py: build_mm_qualitative() reads rescored.jsonl, else
-- scored.jsonl; collect_mm_scores() reads summary_vocab.json, else summary.json, in both
-- modes). The unified score: f1 for set rows, correct for judge rows, 0 for incomplete rows;
-- set_f1 only for a run with neither. Error and incomplete results score 0.
-- Not done yet: runs with no per-question rows at all could fall back to the authors'
-- summary numbers (summary_metrics); they are left out of the leaderboard for now.

CREATE OR REPLACE VIEW leaderboard_runs AS
WITH author_runs AS (
    -- one scorer per run: rescored when the run has such rows, else scored
    SELECT run_id, CASE WHEN bool_or(scorer = 'rescored') THEN 'rescored' ELSE 'scored' END
               AS scorer
    FROM question_scores
    WHERE scorer IN ('scored', 'rescored')
    GROUP BY run_id
)
SELECT
    r.run_id,
    r.benchmark,
    r.mode,
    r.split,
    r.model,
    coalesce(m.display_name, r.model) AS display_name,
    coalesce(a.scorer, 'set_f1') AS score_source
FROM runs AS r
LEFT JOIN models AS m ON m.model = r.model
LEFT JOIN author_runs AS a
    ON a.run_id = r.run_id
    AND r.benchmark = 'mm_bench'
WHERE NOT coalesce(r.is_archived, false)
    AND (r.split IN ('full1800', 'subset600', 'full2703') OR r.split LIKE 'full%');

COMMENT ON VIEW leaderboard_runs IS 'Runs on the leaderboard: not archived, split full1800, subset600, full2703 or any full*; score_source says which question_scores scorer scores each (set_f1, or for mm_bench the authors'' rows with the authors'' fallback: rescored when the run has any, else scored, in either mode).';
COMMENT ON COLUMN leaderboard_runs.run_id IS 'Run id: logical path of the run directory (see runs).';
COMMENT ON COLUMN leaderboard_runs.benchmark IS 'Benchmark of the run: ehr_bench, agent_ehr_bench, mm_bench, ...';
COMMENT ON COLUMN leaderboard_runs.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_runs.split IS 'Full split of the run: full1800, subset600, full2703 or another full*.';
COMMENT ON COLUMN leaderboard_runs.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN leaderboard_runs.display_name IS 'Human model name from models; the key itself when models has none.';
COMMENT ON COLUMN leaderboard_runs.score_source IS 'question_scores scorer that scores the run: for mm_bench rescored when the run has rescored rows, else scored when it has scored rows (the authors'' fallback, either mode); set_f1 otherwise.';

CREATE OR REPLACE VIEW leaderboard_result_scores AS
WITH set_f1 AS (
    -- One row per result even if a scorer wrote a result twice (no fan-out of results).
    SELECT run_id, qid, run_index, avg(f1) AS score
    FROM question_scores
    WHERE scorer = 'set_f1'
    GROUP BY run_id, qid, run_index
),
authors AS (
    SELECT
        run_id,
        qid,
        run_index,
        scorer,
        avg(
            CASE
                WHEN route = 'llm_judge' THEN coalesce(correct, CAST(judge_match AS DOUBLE), 0.0)
                WHEN route = 'incomplete' THEN 0.0
                ELSE coalesce(f1, correct, 0.0)
            END
        ) AS score
    FROM question_scores
    WHERE scorer IN ('scored', 'rescored')
    GROUP BY run_id, qid, run_index, scorer
)
SELECT
    lr.run_id,
    lr.benchmark,
    lr.mode,
    lr.split,
    lr.model,
    lr.score_source,
    res.qid,
    res.run_index,
    res.task,
    res.task_group,
    res.status,
    CASE WHEN lr.score_source = 'set_f1' THEN s.score ELSE a.score END AS source_score,
    CASE
        WHEN res.status IN ('error', 'incomplete') THEN 0.0
        ELSE coalesce(CASE WHEN lr.score_source = 'set_f1' THEN s.score ELSE a.score END, 0.0)
    END AS score
FROM leaderboard_runs AS lr
JOIN results AS res ON res.run_id = lr.run_id
LEFT JOIN set_f1 AS s
    ON s.run_id = res.run_id AND s.qid = res.qid AND s.run_index = res.run_index
LEFT JOIN authors AS a
    ON a.run_id = res.run_id
    AND a.qid = res.qid
    AND a.run_index = res.run_index
    AND a.scorer = lr.score_source
-- a multimodal question with empty gold has no authors' row (score_multimodal.py skips it):
-- it is not on the authors' leaderboard either
WHERE NOT (lr.score_source IN ('scored', 'rescored') AND a.score IS NULL
           AND EXISTS (SELECT 1 FROM question_scores AS g
                       WHERE g.run_id = res.run_id AND g.qid = res.qid
                         AND g.run_index = res.run_index AND g.scorer = 'authors_mm_set'
                         AND g.route = 'no_gold'));

COMMENT ON VIEW leaderboard_result_scores IS 'One score per result (run_id, qid, run_index) of a leaderboard run: source_score is the row of the run''s score_source (set_f1: f1; scored/rescored: unified score = f1 for set rows, correct for llm_judge rows, 0 for incomplete rows), NULL when that scorer has no row; score is source_score with error and incomplete results and unscored results set to 0. Multimodal questions with empty gold, which the authors'' scorer skips (authors_mm_set route no_gold), are left out of runs scored from the authors'' rows.';
COMMENT ON COLUMN leaderboard_result_scores.run_id IS 'Leaderboard run of the result (see leaderboard_runs).';
COMMENT ON COLUMN leaderboard_result_scores.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_result_scores.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_result_scores.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_result_scores.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_result_scores.score_source IS 'Scorer whose rows give source_score: set_f1, scored or rescored.';
COMMENT ON COLUMN leaderboard_result_scores.qid IS 'Question id.';
COMMENT ON COLUMN leaderboard_result_scores.run_index IS '1-based run number of the question (a question may be run several times).';
COMMENT ON COLUMN leaderboard_result_scores.task IS 'Task of the question (results.task).';
COMMENT ON COLUMN leaderboard_result_scores.task_group IS 'risk_prediction / decision_making for text tasks, the task family for multimodal ones.';
COMMENT ON COLUMN leaderboard_result_scores.status IS 'Normalized status of the result: success, incomplete or error.';
COMMENT ON COLUMN leaderboard_result_scores.source_score IS 'Score of the result from the score_source rows, a fraction in [0, 1]; NULL when that scorer has no row for it.';
COMMENT ON COLUMN leaderboard_result_scores.score IS 'Score that counts, a fraction in [0, 1]: source_score, or 0 for error, incomplete and unscored results.';

CREATE OR REPLACE VIEW leaderboard_question_scores AS
SELECT
    run_id,
    benchmark,
    mode,
    split,
    model,
    score_source,
    qid,
    min(task) AS task,
    min(task_group) AS task_group,
    count(*) AS n_runs,
    count(*) FILTER (WHERE status = 'error') AS n_error_runs,
    count(*) FILTER (WHERE source_score IS NULL) AS n_unscored_runs,
    avg(score) AS score
FROM leaderboard_result_scores
GROUP BY run_id, benchmark, mode, split, model, score_source, qid;

COMMENT ON VIEW leaderboard_question_scores IS 'Per question of a leaderboard run: score = mean over its runs (run_index) of leaderboard_result_scores.score; the unit that leaderboard, leaderboard_by_task and leaderboard_by_group average (micro).';
COMMENT ON COLUMN leaderboard_question_scores.run_id IS 'Leaderboard run of the question (see leaderboard_runs).';
COMMENT ON COLUMN leaderboard_question_scores.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_question_scores.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_question_scores.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_question_scores.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_question_scores.score_source IS 'Scorer of the per-result scores: set_f1, scored or rescored.';
COMMENT ON COLUMN leaderboard_question_scores.qid IS 'Question id.';
COMMENT ON COLUMN leaderboard_question_scores.task IS 'Task of the question (the smallest name if its runs disagree).';
COMMENT ON COLUMN leaderboard_question_scores.task_group IS 'Task group of the question (the smallest name if its runs disagree).';
COMMENT ON COLUMN leaderboard_question_scores.n_runs IS 'Result rows (run_index values) of the question in the run.';
COMMENT ON COLUMN leaderboard_question_scores.n_error_runs IS 'Result rows of the question with status error (scored 0).';
COMMENT ON COLUMN leaderboard_question_scores.n_unscored_runs IS 'Result rows of the question with no row of the score_source scorer (scored 0).';
COMMENT ON COLUMN leaderboard_question_scores.score IS 'Mean of leaderboard_result_scores.score over the question''s runs, a fraction in [0, 1].';

CREATE OR REPLACE VIEW leaderboard AS
WITH per_run AS (
    SELECT
        run_id,
        benchmark,
        mode,
        split,
        model,
        score_source,
        count(*) AS n_questions,
        avg(score) AS score,
        stddev_samp(score) AS score_sd,
        -- sum(BIGINT) is HUGEINT; BI drivers and Parquet want a plain BIGINT.
        CAST(sum(n_error_runs) AS BIGINT) AS n_error_runs,
        CAST(sum(n_unscored_runs) AS BIGINT) AS n_unscored_runs
    FROM leaderboard_question_scores
    GROUP BY run_id, benchmark, mode, split, model, score_source
)
SELECT
    p.benchmark,
    p.mode,
    p.model,
    p.n_questions,
    p.score,
    -- 95% normal approximation on per-question scores (z = 1.959964), clipped to [0, 1];
    -- undefined (NULL) for a single question.
    CASE WHEN p.n_questions > 1
        THEN greatest(0.0, p.score - 1.959963984540054 * p.score_sd / sqrt(p.n_questions))
    END AS ci_low,
    CASE WHEN p.n_questions > 1
        THEN least(1.0, p.score + 1.959963984540054 * p.score_sd / sqrt(p.n_questions))
    END AS ci_high,
    rank() OVER (PARTITION BY p.benchmark, p.mode ORDER BY p.score DESC) AS rank,
    lr.display_name,
    p.split,
    p.run_id,
    p.score_source,
    p.n_error_runs,
    p.n_unscored_runs
FROM per_run AS p
JOIN leaderboard_runs AS lr ON lr.run_id = p.run_id;

COMMENT ON VIEW leaderboard IS 'One row per current (not archived) full-split run: score = micro mean over the questions present in the run of the per-question score (mean over its runs); scorer set_f1 (f1) for text benchmarks, for mm_bench the authors'' unified score from rescored rows, else scored rows (the authors'' fallback), else set_f1 (see score_source); error and incomplete results score 0. ci_low/ci_high: 95% normal-approximation interval on the per-question scores (mean +- 1.96 * sd / sqrt(n)), clipped to [0, 1], NULL for n = 1. rank: competition rank by score within (benchmark, mode). Runs with no per-question score rows at all are not shown (a summary-number fallback is not implemented yet).';
COMMENT ON COLUMN leaderboard.benchmark IS 'Benchmark of the run: ehr_bench, agent_ehr_bench, mm_bench, ...';
COMMENT ON COLUMN leaderboard.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN leaderboard.n_questions IS 'Distinct questions present in the run (the denominator of the micro mean).';
COMMENT ON COLUMN leaderboard.score IS 'Micro mean of per-question scores, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard.ci_low IS 'Lower end of the 95% normal-approximation interval, clipped to 0.';
COMMENT ON COLUMN leaderboard.ci_high IS 'Upper end of the 95% normal-approximation interval, clipped to 1.';
COMMENT ON COLUMN leaderboard.rank IS 'Rank by score within (benchmark, mode), 1 = best; ties share a rank.';
COMMENT ON COLUMN leaderboard.display_name IS 'Human model name from models; the key itself when models has none.';
COMMENT ON COLUMN leaderboard.split IS 'Full split of the run: full1800, subset600, full2703 or another full*.';
COMMENT ON COLUMN leaderboard.run_id IS 'The run the row scores (logical path, see runs).';
COMMENT ON COLUMN leaderboard.score_source IS 'Scorer of the per-question rows: set_f1, scored or rescored.';
COMMENT ON COLUMN leaderboard.n_error_runs IS 'Result rows (qid, run_index) of the run with status error (scored 0); a count of result rows, not of questions.';
COMMENT ON COLUMN leaderboard.n_unscored_runs IS 'Result rows (qid, run_index) with no row of the score_source scorer (scored 0); a count of result rows, not of questions.';

CREATE OR REPLACE VIEW leaderboard_by_task AS
SELECT
    benchmark,
    mode,
    model,
    task,
    task_group,
    count(*) AS n_questions,
    avg(score) AS score,
    split,
    run_id,
    score_source
FROM leaderboard_question_scores
GROUP BY benchmark, mode, model, task, task_group, split, run_id, score_source;

COMMENT ON VIEW leaderboard_by_task IS 'Per leaderboard run and task: score = micro mean over the task''s questions of the per-question score (mean over runs), same scorer choice as leaderboard (see score_source); no interval.';
COMMENT ON COLUMN leaderboard_by_task.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_by_task.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_by_task.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN leaderboard_by_task.task IS 'Task name (results.task).';
COMMENT ON COLUMN leaderboard_by_task.task_group IS 'Group of the task: risk_prediction / decision_making, or the multimodal task family.';
COMMENT ON COLUMN leaderboard_by_task.n_questions IS 'Distinct questions of the task present in the run (the denominator of the micro mean).';
COMMENT ON COLUMN leaderboard_by_task.score IS 'Micro mean over the task''s questions of the per-question score, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard_by_task.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_by_task.run_id IS 'The run the row scores (see runs).';
COMMENT ON COLUMN leaderboard_by_task.score_source IS 'Scorer of the per-question rows: set_f1, scored or rescored.';

CREATE OR REPLACE VIEW leaderboard_by_group AS
SELECT
    benchmark,
    mode,
    model,
    task_group,
    count(*) AS n_questions,
    avg(score) AS score,
    split,
    run_id,
    score_source
FROM leaderboard_question_scores
GROUP BY benchmark, mode, model, task_group, split, run_id, score_source;

COMMENT ON VIEW leaderboard_by_group IS 'Per leaderboard run and task group (risk_prediction / decision_making, or the multimodal task family): score = micro mean over the group''s questions (groups weigh by their size, as the paper''s Overall), same scorer choice as leaderboard; no interval.';
COMMENT ON COLUMN leaderboard_by_group.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_by_group.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_by_group.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN leaderboard_by_group.task_group IS 'risk_prediction / decision_making for text tasks, the task family for multimodal ones.';
COMMENT ON COLUMN leaderboard_by_group.n_questions IS 'Distinct questions of the group present in the run (the denominator of the micro mean).';
COMMENT ON COLUMN leaderboard_by_group.score IS 'Micro mean over the group''s questions of the per-question score, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard_by_group.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_by_group.run_id IS 'The run the row scores (see runs).';
COMMENT ON COLUMN leaderboard_by_group.score_source IS 'Scorer of the per-question rows: set_f1, scored or rescored.';
