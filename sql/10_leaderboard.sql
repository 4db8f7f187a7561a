-- Leaderboard views. The chain, each step a view so every number traces to its rows:
--   leaderboard_runs                  current runs of full splits, and their default scorer
--   leaderboard_scorers               every scorer each run can be shown with (default marked)
--   leaderboard_result_scores_all     one score per result and scorer
--   leaderboard_question_scores_all   per question and scorer: mean over its runs
--   board_question_scores             every question of every board (default, or one scorer)
--   board_cells                       every number a board shows: per board, question set
--                                     (all, shared), level (overall, group, task) and run,
--                                     n, score, rank, the default interval (clustered by
--                                     patient) and the naive one: the semantic layer
--   leaderboard_all_scorers / leaderboard_by_task_all_scorers / leaderboard_by_group_all_scorers:
--                                     board_cells of the scorer boards, one per scorer
--   leaderboard, leaderboard_by_task, leaderboard_by_group, leaderboard_result_scores,
--   leaderboard_question_scores:      the same, default scorer only (the public contract)
--   leaderboard_best_at_k             best@k over runs, runs with several runs per question
--   scorer_disagreements              results where the default and set_f1 disagree
-- Default scorer: text benchmarks (everything but mm_bench) use authors_text, the benchmark
-- authors' own scorer (etl/scoring/authors_text.py, a port of clinseekagent/scoring/score_text.py): its
-- F1 as computed, the record's status NOT consulted (an incomplete run with a finish answer
-- counts; error rows have no finish call and score 0 by the rule itself), a result without
-- a row scores 0. mm_bench uses the authors' per-question rows with the authors' own
-- fallback, whatever the mode: rescored (rescored.jsonl) when the run has any, else scored
-- (scored.jsonl), as the authors' analysis does (UCSC-VLAA/ClinSeekAgent
-- openresearcher_ehr/analysis/findings_20260427/build_figures_and_report.py:
-- build_mm_qualitative() reads rescored.jsonl, else scored.jsonl; collect_mm_scores() reads
-- summary_vocab.json, else summary.json, in both modes), with the unified score (f1 for set
-- rows, correct for judge rows, 0 for incomplete rows), and set_f1 for a run with neither;
-- for those (and for set_f1 wherever it is shown) error and incomplete results score 0. A
-- multimodal question with empty gold has no authors' row (score_multimodal.py skips it)
-- and is not on the authors' leaderboard either.
-- Extra scorers beside the default, never instead of it: set_f1 (the project's normalized
-- rule: strip, non-string items as text, error/incomplete = 0) and authors_text_fallback
-- (the authors' --extract-text-answer-without-finish option).
-- Not done yet: runs with no per-question rows at all could fall back to the authors'
-- summary numbers (summary_metrics); they are left out of the leaderboard for now.

CREATE OR REPLACE VIEW leaderboard_runs AS
WITH rows_of_defaults AS (
    -- the defaults a run takes only when it has rows of them (scorers.default_needs_rows:
    -- the authors' rescored and scored rows), per run
    SELECT run_id, scorer
    FROM question_scores
    WHERE scorer IN (SELECT scorer FROM scorers WHERE default_needs_rows)
    GROUP BY run_id, scorer
),
picked AS (
    -- the first default of the run's benchmark kind it has rows of, else the last one
    SELECT f.run_id, min(s.default_rank) AS default_rank
    FROM full_split_runs AS f
    JOIN scorers AS s ON s.default_for = f.benchmark_kind
    LEFT JOIN rows_of_defaults AS w ON w.run_id = f.run_id AND w.scorer = s.scorer
    WHERE NOT s.default_needs_rows OR w.run_id IS NOT NULL
    GROUP BY f.run_id
)
SELECT
    f.run_id,
    f.benchmark,
    f.mode,
    f.split,
    f.model,
    coalesce(m.display_name, f.model) AS display_name,
    -- the run of an Inspect AI log: the log's headline scorer (inspect_scorers)
    coalesce(i.scorer, s.scorer) AS score_source,
    coalesce(i.scorer, s.scorer) AS scorer,
    -- a scored-only run (board_results): its results were made and scored elsewhere
    f.scored_elsewhere,
    f.benchmark_kind
FROM full_split_runs AS f
JOIN picked AS p ON p.run_id = f.run_id
JOIN scorers AS s ON s.default_for = f.benchmark_kind AND s.default_rank = p.default_rank
LEFT JOIN inspect_scorers AS i ON i.run_id = f.run_id AND i.is_default
LEFT JOIN models AS m ON m.model = f.model;

COMMENT ON VIEW leaderboard_runs IS 'Runs on the leaderboard: not archived, split full1800, subset600, full2703 or any full*; score_source (= scorer) is the default scorer of each: authors_text (the benchmark authors'' text scorer) for text benchmarks; for mm_bench the authors'' rows with the authors'' fallback: rescored when the run has any, else scored, in either mode; else set_f1. The run of an Inspect AI log: the log''s headline scorer (inspect_scorers.is_default).';
COMMENT ON COLUMN leaderboard_runs.run_id IS 'Run id: logical path of the run directory (see runs).';
COMMENT ON COLUMN leaderboard_runs.benchmark IS 'Benchmark of the run: ehr_bench, agent_ehr_bench, mm_bench, ...';
COMMENT ON COLUMN leaderboard_runs.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_runs.split IS 'Full split of the run: full1800, subset600, full2703 or another full*.';
COMMENT ON COLUMN leaderboard_runs.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN leaderboard_runs.display_name IS 'Human model name from models; the key itself when models has none.';
COMMENT ON COLUMN leaderboard_runs.score_source IS 'Default scorer of the run (question_scores.scorer): authors_text for text benchmarks; for mm_bench rescored when the run has rescored rows, else scored when it has scored rows (the authors'' fallback, either mode), else set_f1.';
COMMENT ON COLUMN leaderboard_runs.scored_elsewhere IS 'True for a scored-only run (runs.scored_elsewhere): a <benchmark>/<mode>/scored/<model> directory with no run of its own (analysis/ingest_external_results.py stages external models that way). Its split is the benchmark''s full split, its board rows come from the authors'' per-question score rows (board_results); it has no results, trajectories or coverage of its own.';
COMMENT ON COLUMN leaderboard_runs.benchmark_kind IS 'text or multimodal (full_split_runs.benchmark_kind): which scorers apply to the run''s results (scorers.benchmarks) and which are its board''s defaults (scorers.default_for).';
COMMENT ON COLUMN leaderboard_runs.scorer IS 'Same as score_source: the scorer that makes the run''s default leaderboard numbers.';

CREATE OR REPLACE VIEW leaderboard_scorers AS
SELECT run_id, score_source AS scorer, true AS is_default
FROM leaderboard_runs
UNION ALL
SELECT lr.run_id, s.scorer, false AS is_default
FROM leaderboard_runs AS lr
JOIN scorers AS s
    ON s.extra AND s.scorer <> lr.score_source
    -- a scorer that makes rows for the run: one of its benchmark kind, and one computed from
    -- results only for a run that has results (not a scored-only run)
    AND s.benchmarks IN ('all', lr.benchmark_kind)
    AND NOT (lr.scored_elsewhere AND s.question_rows = 'result')
-- the run of an Inspect AI log: its own other scorers instead
WHERE lr.run_id NOT IN (SELECT run_id FROM inspect_scorers)
UNION ALL
SELECT lr.run_id, i.scorer, false AS is_default
FROM leaderboard_runs AS lr
JOIN inspect_scorers AS i ON i.run_id = lr.run_id AND i.scorer <> lr.score_source;

COMMENT ON VIEW leaderboard_scorers IS 'Every scorer each leaderboard run can be shown with: its default (is_default, see leaderboard_runs.score_source) and every scorer shown beside it (scorers.extra: authors_text, authors_text_fallback, set_f1, paper_text, paper_agentehr) that makes rows for the run: one of its benchmark kind (the paper''s two rules: text runs only), and none computed from results for a scored-only run, which has none. The run of an Inspect AI log is shown with its log''s own scorers (inspect_scorers) instead.';
COMMENT ON COLUMN leaderboard_scorers.run_id IS 'Leaderboard run (see leaderboard_runs).';
COMMENT ON COLUMN leaderboard_scorers.scorer IS 'question_scores scorer (table scorers): authors_text (default for text benchmarks), authors_text_fallback, set_f1, paper_text, paper_agentehr, or the authors'' scored / rescored rows (mm_bench).';
COMMENT ON COLUMN leaderboard_scorers.is_default IS 'True for the run''s default scorer, the one leaderboard, leaderboard_by_task and leaderboard_by_group show.';

CREATE OR REPLACE VIEW leaderboard_result_scores_all AS
WITH per_result AS (
    -- One score per result and board scorer (a default or an extra), read by the scorer's
    -- score_rule. One row per result even if a scorer wrote a result twice (no fan-out).
    SELECT
        q.run_id,
        q.qid,
        q.run_index,
        q.scorer,
        avg(
            CASE
                WHEN s.score_rule = 'f1' THEN q.f1
                -- value: a score of an Inspect AI log as a number (value_to_float)
                WHEN s.score_rule = 'value' THEN q.value
                -- authors_unified: the authors' multimodal unified score
                WHEN q.route = 'llm_judge' THEN coalesce(q.correct, CAST(q.judge_match AS DOUBLE), 0.0)
                WHEN q.route = 'incomplete' THEN 0.0
                ELSE coalesce(q.f1, q.correct, 0.0)
            END
        ) AS score
    FROM question_scores AS q
    JOIN scorers AS s
        ON s.scorer = q.scorer
        AND (s.extra OR s.default_for IS NOT NULL)
    GROUP BY q.run_id, q.qid, q.run_index, q.scorer
)
SELECT
    lr.run_id,
    lr.benchmark,
    lr.mode,
    lr.split,
    lr.model,
    ls.scorer AS score_source,
    res.qid,
    res.run_index,
    res.task,
    res.task_group,
    res.status,
    ps.score AS source_score,
    CASE
        -- status_rule as_scored: the authors' scorers and the paper's rules never look at it
        WHEN sc.status_rule = 'as_scored' THEN coalesce(ps.score, 0.0)
        -- failed_zero: the failed statuses of the status map score 0
        WHEN res.status IN (SELECT status FROM result_statuses WHERE failed) THEN 0.0
        ELSE coalesce(ps.score, 0.0)
    END AS score,
    ls.scorer,
    ls.is_default
FROM leaderboard_runs AS lr
JOIN leaderboard_scorers AS ls ON ls.run_id = lr.run_id
JOIN scorers AS sc ON sc.scorer = ls.scorer
JOIN board_results AS res ON res.run_id = lr.run_id
LEFT JOIN per_result AS ps
    ON ps.run_id = res.run_id
    AND ps.qid = res.qid
    AND ps.run_index = res.run_index
    AND ps.scorer = ls.scorer
-- a multimodal question with empty gold has no authors' row (score_multimodal.py skips it):
-- it is not on the authors' leaderboard either, under any scorer of a run whose default is
-- read from the authors' files (the scorer that marks such results: scorers.marks_no_gold)
WHERE NOT (lr.score_source IN (SELECT scorer FROM scorers WHERE question_rows = 'authors_file')
           AND NOT EXISTS (SELECT 1 FROM question_scores AS a
                           WHERE a.run_id = res.run_id AND a.qid = res.qid
                             AND a.run_index = res.run_index AND a.scorer = lr.score_source)
           AND EXISTS (SELECT 1 FROM question_scores AS g
                       WHERE g.run_id = res.run_id AND g.qid = res.qid
                         AND g.run_index = res.run_index
                         AND g.scorer IN (SELECT scorer FROM scorers WHERE marks_no_gold)
                         AND g.route = 'no_gold'));

COMMENT ON VIEW leaderboard_result_scores_all IS 'One score per result (run_id, qid, run_index) of a leaderboard run and per scorer of leaderboard_scorers: source_score is that scorer''s row (authors_text, authors_text_fallback, set_f1: f1; scored/rescored: unified score = f1 for set rows, correct for llm_judge rows, 0 for incomplete rows), NULL when it has none; score is what counts: for authors_text* source_score whatever the status (the authors'' rule), for the others 0 for error and incomplete results; 0 when unscored.';
COMMENT ON COLUMN leaderboard_result_scores_all.run_id IS 'Leaderboard run of the result (see leaderboard_runs).';
COMMENT ON COLUMN leaderboard_result_scores_all.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_result_scores_all.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_result_scores_all.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_result_scores_all.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_result_scores_all.score_source IS 'Scorer whose rows give source_score (same as scorer).';
COMMENT ON COLUMN leaderboard_result_scores_all.qid IS 'Question id.';
COMMENT ON COLUMN leaderboard_result_scores_all.run_index IS '1-based run number of the question (a question may be run several times).';
COMMENT ON COLUMN leaderboard_result_scores_all.task IS 'Task of the question (results.task).';
COMMENT ON COLUMN leaderboard_result_scores_all.task_group IS 'risk_prediction / decision_making for text tasks, the task family for multimodal ones.';
COMMENT ON COLUMN leaderboard_result_scores_all.status IS 'Normalized status of the result: success, incomplete or error.';
COMMENT ON COLUMN leaderboard_result_scores_all.source_score IS 'Score of the result from the scorer''s rows, a fraction in [0, 1]; NULL when that scorer has no row for it.';
COMMENT ON COLUMN leaderboard_result_scores_all.score IS 'Score that counts, a fraction in [0, 1]: source_score (0 when NULL); for scorers other than authors_text* also 0 for error and incomplete results.';
COMMENT ON COLUMN leaderboard_result_scores_all.scorer IS 'Scorer of the row (see leaderboard_scorers).';
COMMENT ON COLUMN leaderboard_result_scores_all.is_default IS 'True when scorer is the run''s default scorer.';

CREATE OR REPLACE VIEW leaderboard_result_scores AS
SELECT
    run_id, benchmark, mode, split, model, score_source, qid, run_index, task, task_group,
    status, source_score, score, scorer
FROM leaderboard_result_scores_all
WHERE is_default;

COMMENT ON VIEW leaderboard_result_scores IS 'One score per result (run_id, qid, run_index) of a leaderboard run by its default scorer (leaderboard_runs.score_source): leaderboard_result_scores_all where is_default. authors_text (text benchmarks): the authors'' F1, status not consulted; scored/rescored (mm_bench): unified score, error and incomplete results 0; set_f1: f1, error and incomplete results 0; unscored results 0. Multimodal questions with empty gold, which the authors'' scorer skips (authors_mm_set route no_gold), are left out of runs scored from the authors'' rows.';
COMMENT ON COLUMN leaderboard_result_scores.run_id IS 'Leaderboard run of the result (see leaderboard_runs).';
COMMENT ON COLUMN leaderboard_result_scores.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_result_scores.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_result_scores.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_result_scores.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_result_scores.score_source IS 'Scorer whose rows give source_score: authors_text, scored, rescored or set_f1.';
COMMENT ON COLUMN leaderboard_result_scores.qid IS 'Question id.';
COMMENT ON COLUMN leaderboard_result_scores.run_index IS '1-based run number of the question (a question may be run several times).';
COMMENT ON COLUMN leaderboard_result_scores.task IS 'Task of the question (results.task).';
COMMENT ON COLUMN leaderboard_result_scores.task_group IS 'risk_prediction / decision_making for text tasks, the task family for multimodal ones.';
COMMENT ON COLUMN leaderboard_result_scores.status IS 'Normalized status of the result: success, incomplete or error.';
COMMENT ON COLUMN leaderboard_result_scores.source_score IS 'Score of the result from the score_source rows, a fraction in [0, 1]; NULL when that scorer has no row for it.';
COMMENT ON COLUMN leaderboard_result_scores.score IS 'Score that counts, a fraction in [0, 1] (see the view comment for the status rule of each scorer).';
COMMENT ON COLUMN leaderboard_result_scores.scorer IS 'Same as score_source: the scorer that made the number.';

CREATE OR REPLACE VIEW leaderboard_question_scores_all AS
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
    avg(score) AS score,
    scorer,
    is_default
FROM leaderboard_result_scores_all
GROUP BY run_id, benchmark, mode, split, model, score_source, qid, scorer, is_default;

COMMENT ON VIEW leaderboard_question_scores_all IS 'Per question of a leaderboard run and per scorer: score = mean over its runs (run_index) of leaderboard_result_scores_all.score; the unit the *_all_scorers boards average (micro).';
COMMENT ON COLUMN leaderboard_question_scores_all.run_id IS 'Leaderboard run of the question (see leaderboard_runs).';
COMMENT ON COLUMN leaderboard_question_scores_all.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_question_scores_all.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_question_scores_all.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_question_scores_all.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_question_scores_all.score_source IS 'Scorer of the per-result scores (same as scorer).';
COMMENT ON COLUMN leaderboard_question_scores_all.qid IS 'Question id.';
COMMENT ON COLUMN leaderboard_question_scores_all.task IS 'Task of the question (the smallest name if its runs disagree).';
COMMENT ON COLUMN leaderboard_question_scores_all.task_group IS 'Task group of the question (the smallest name if its runs disagree).';
COMMENT ON COLUMN leaderboard_question_scores_all.n_runs IS 'Result rows (run_index values) of the question in the run.';
COMMENT ON COLUMN leaderboard_question_scores_all.n_error_runs IS 'Result rows of the question with status error.';
COMMENT ON COLUMN leaderboard_question_scores_all.n_unscored_runs IS 'Result rows of the question with no row of the scorer (scored 0).';
COMMENT ON COLUMN leaderboard_question_scores_all.score IS 'Mean of leaderboard_result_scores_all.score over the question''s runs, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard_question_scores_all.scorer IS 'Scorer of the row (see leaderboard_scorers).';
COMMENT ON COLUMN leaderboard_question_scores_all.is_default IS 'True when scorer is the run''s default scorer.';

CREATE OR REPLACE VIEW leaderboard_question_scores AS
SELECT
    run_id, benchmark, mode, split, model, score_source, qid, task, task_group, n_runs,
    n_error_runs, n_unscored_runs, score, scorer
FROM leaderboard_question_scores_all
WHERE is_default;

COMMENT ON VIEW leaderboard_question_scores IS 'Per question of a leaderboard run, default scorer: score = mean over its runs (run_index) of leaderboard_result_scores.score; the unit that leaderboard, leaderboard_by_task and leaderboard_by_group average (micro).';
COMMENT ON COLUMN leaderboard_question_scores.run_id IS 'Leaderboard run of the question (see leaderboard_runs).';
COMMENT ON COLUMN leaderboard_question_scores.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_question_scores.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_question_scores.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_question_scores.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_question_scores.score_source IS 'Scorer of the per-result scores: authors_text, scored, rescored or set_f1.';
COMMENT ON COLUMN leaderboard_question_scores.qid IS 'Question id.';
COMMENT ON COLUMN leaderboard_question_scores.task IS 'Task of the question (the smallest name if its runs disagree).';
COMMENT ON COLUMN leaderboard_question_scores.task_group IS 'Task group of the question (the smallest name if its runs disagree).';
COMMENT ON COLUMN leaderboard_question_scores.n_runs IS 'Result rows (run_index values) of the question in the run.';
COMMENT ON COLUMN leaderboard_question_scores.n_error_runs IS 'Result rows of the question with status error.';
COMMENT ON COLUMN leaderboard_question_scores.n_unscored_runs IS 'Result rows of the question with no row of the score_source scorer (scored 0).';
COMMENT ON COLUMN leaderboard_question_scores.score IS 'Mean of leaderboard_result_scores.score over the question''s runs, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard_question_scores.scorer IS 'Same as score_source: the scorer that made the number.';

CREATE OR REPLACE VIEW board_question_scores AS
-- A board is a benchmark and mode scored one way (board_scorer): 'default', each run by its
-- own default scorer (the leaderboard), or a scorer's name, every run that scorer has rows
-- for by it (leaderboard_scorers). Every question of every run of every board, once, with
-- its patient (question_clusters) and whether every run of its board has it (shared).
-- Each step reads the one before it once, so that a filter on the board reaches the scan.
WITH boards AS (
    SELECT
        'default' AS board_scorer, run_id, benchmark, mode, split, model, scorer, is_default,
        qid, task, task_group, n_runs, n_error_runs, n_unscored_runs, score
    FROM leaderboard_question_scores_all
    WHERE is_default
    UNION ALL
    SELECT
        scorer AS board_scorer, run_id, benchmark, mode, split, model, scorer, is_default,
        qid, task, task_group, n_runs, n_error_runs, n_unscored_runs, score
    FROM leaderboard_question_scores_all
),
counted AS (
    SELECT
        *,
        -- the runs of the board that have the question, and the run's place among the
        -- board's runs (its largest value is the number of runs of the board)
        count(*) OVER (PARTITION BY benchmark, mode, board_scorer, qid) AS n_question_runs,
        dense_rank() OVER (PARTITION BY benchmark, mode, board_scorer ORDER BY run_id)
            AS run_number
    FROM boards
),
sized AS (
    SELECT
        *,
        max(run_number) OVER (PARTITION BY benchmark, mode, board_scorer) AS n_board_runs
    FROM counted
)
SELECT
    b.benchmark, b.mode, b.board_scorer, b.run_id, b.model, b.split, b.scorer, b.is_default,
    b.qid, b.task, b.task_group, b.n_runs, b.n_error_runs, b.n_unscored_runs, b.score,
    c.cluster,
    b.n_question_runs = b.n_board_runs AS shared
FROM sized AS b
LEFT JOIN question_clusters AS c ON c.run_id = b.run_id AND c.qid = b.qid;

COMMENT ON VIEW board_question_scores IS 'Every question of every run of every board, the unit every number of board_cells is made of. A board is a benchmark and mode scored one way (board_scorer): default, each run by its own default scorer (the leaderboard), or a scorer''s name, every run that can be shown with it (leaderboard_scorers) by that scorer. score: the question''s score (leaderboard_question_scores_all: mean over its runs); cluster: its patient (question_clusters); shared: every run of the board has the question.';
COMMENT ON COLUMN board_question_scores.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN board_question_scores.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN board_question_scores.board_scorer IS 'How the board is scored: default (each run by its default scorer) or a scorer name.';
COMMENT ON COLUMN board_question_scores.run_id IS 'Leaderboard run (see leaderboard_runs).';
COMMENT ON COLUMN board_question_scores.model IS 'Canonical model key.';
COMMENT ON COLUMN board_question_scores.split IS 'Full split of the run.';
COMMENT ON COLUMN board_question_scores.scorer IS 'Scorer that made the question''s score.';
COMMENT ON COLUMN board_question_scores.is_default IS 'True when scorer is the run''s default scorer.';
COMMENT ON COLUMN board_question_scores.qid IS 'Question id.';
COMMENT ON COLUMN board_question_scores.task IS 'Task of the question.';
COMMENT ON COLUMN board_question_scores.task_group IS 'Task group of the question.';
COMMENT ON COLUMN board_question_scores.n_runs IS 'Result rows (attempts) of the question in the run.';
COMMENT ON COLUMN board_question_scores.n_error_runs IS 'Attempts with status error.';
COMMENT ON COLUMN board_question_scores.n_unscored_runs IS 'Attempts with no row of the scorer (scored 0).';
COMMENT ON COLUMN board_question_scores.score IS 'Score of the question: mean over its attempts, a fraction in [0, 1].';
COMMENT ON COLUMN board_question_scores.cluster IS 'The question''s patient (question_clusters; a question of unknown patient is its own cluster).';
COMMENT ON COLUMN board_question_scores.shared IS 'True when every run of the board has the question (the question set shared of board_cells).';

CREATE OR REPLACE VIEW board_cells AS
-- Every number a leaderboard shows, for every board (board_question_scores), question set
-- (all: each run's own questions; shared: only the questions every run of the board has),
-- level (overall, group: one task group, task: one task) and run: n, the mean, its rank, the
-- naive interval and the interval clustered by patient (docs/STATISTICS.md). Each step
-- reads the one before it once (windows, not self-joins), so that a filter on the board,
-- question set and level reaches the scan.
WITH cells AS (
    -- every question once per question set and cell it belongs to ('' stands for a missing
    -- label, so that the cell keys compare with plain equality); the questions are read once
    -- and joined to the six (question set, level) pairs, so that a filter on either keeps
    -- only its pairs
    SELECT
        q.benchmark, q.mode, q.board_scorer, v.question_set, v.level,
        CASE WHEN v.level = 'overall' THEN '' ELSE coalesce(q.task_group, '') END AS task_group,
        CASE WHEN v.level = 'task' THEN coalesce(q.task, '') ELSE '' END AS task,
        q.run_id, q.model, q.split, q.scorer, q.is_default, q.qid, q.score, q.cluster,
        q.n_error_runs, q.n_unscored_runs
    FROM board_question_scores AS q
    JOIN (VALUES ('all', 'overall'), ('all', 'group'), ('all', 'task'),
                 ('shared', 'overall'), ('shared', 'group'), ('shared', 'task'))
        AS v (question_set, level)
        ON v.question_set = 'all' OR q.shared
),
centred AS (
    -- each question with its cell's mean m, size and spread
    SELECT
        *,
        avg(score) OVER cell AS cell_score,
        count(*) OVER cell AS cell_n,
        stddev_samp(score) OVER cell AS cell_sd,
        min(score) OVER cell = max(score) OVER cell AS all_equal
    FROM cells
    WINDOW cell AS (PARTITION BY benchmark, mode, board_scorer, question_set, level,
                                 task_group, task, run_id)
),
per_cluster AS (
    -- each patient of each cell: the sum of its questions' deviations from the cell's mean
    SELECT
        benchmark, mode, board_scorer, question_set, level, task_group, task, run_id, cluster,
        sum(score - cell_score) AS deviation,
        sum(n_error_runs) AS n_error_runs,
        sum(n_unscored_runs) AS n_unscored_runs,
        min(model) AS model, min(split) AS split, min(scorer) AS scorer,
        bool_and(is_default) AS is_default, min(cell_score) AS score, min(cell_n) AS n,
        min(cell_sd) AS score_sd, bool_and(all_equal) AS all_equal
    FROM centred
    GROUP BY benchmark, mode, board_scorer, question_set, level, task_group, task, run_id,
        cluster
),
per_cell AS (
    SELECT
        benchmark, mode, board_scorer, question_set, level, task_group, task, run_id,
        min(model) AS model, min(split) AS split, min(scorer) AS scorer,
        bool_and(is_default) AS is_default,
        min(n) AS n_questions,
        count(*) AS n_clusters,
        min(score) AS score,
        min(score_sd) AS score_sd,
        bool_and(all_equal) AS all_equal,
        -- sum over clusters of (sum over the cluster's questions of (s_i - m))^2
        sum(deviation * deviation) AS cluster_squares,
        -- sum(BIGINT) is HUGEINT; BI drivers and Parquet want a plain BIGINT.
        CAST(sum(n_error_runs) AS BIGINT) AS n_error_runs,
        CAST(sum(n_unscored_runs) AS BIGINT) AS n_unscored_runs
    FROM per_cluster
    GROUP BY benchmark, mode, board_scorer, question_set, level, task_group, task, run_id
),
errors AS (
    SELECT
        *,
        CASE WHEN n_questions > 1 THEN score_sd / sqrt(n_questions) END AS se_naive,
        -- one cluster, or every score equal: the sum is 0 by algebra (rounding would leave
        -- 1e-17)
        CASE WHEN n_clusters = 1 OR all_equal THEN 0.0
            ELSE sqrt(cluster_squares) / n_questions END AS se_clustered
    FROM per_cell
)
SELECT
    e.benchmark,
    e.mode,
    e.board_scorer,
    e.question_set,
    e.level,
    nullif(e.task_group, '') AS task_group,
    nullif(e.task, '') AS task,
    e.scorer,
    e.model,
    e.n_questions,
    e.score,
    rank() OVER (PARTITION BY e.benchmark, e.mode, e.board_scorer, e.question_set, e.level,
                              e.task_group, e.task
                 ORDER BY e.score DESC) AS rank,
    -- the default interval: 95%, clustered by patient (m -+ 1.959964 se_clustered, not
    -- clipped); none for a single cluster
    CASE WHEN e.n_clusters > 1 THEN e.score - 1.959964 * e.se_clustered END AS ci_low,
    CASE WHEN e.n_clusters > 1 THEN e.score + 1.959964 * e.se_clustered END AS ci_high,
    -- the naive interval: 95% normal approximation as if questions were independent, clipped
    -- to [0, 1]; none for a single question
    CASE WHEN e.n_questions > 1
        THEN greatest(0.0, e.score - 1.959963984540054 * e.se_naive) END AS ci_naive_low,
    CASE WHEN e.n_questions > 1
        THEN least(1.0, e.score + 1.959963984540054 * e.se_naive) END AS ci_naive_high,
    e.se_naive,
    e.se_clustered,
    e.n_clusters,
    CASE WHEN e.n_clusters > 1 AND e.se_naive > 0 THEN power(e.se_clustered / e.se_naive, 2)
        END AS design_effect,
    e.n_clusters = 1 AS single_cluster,
    e.n_error_runs,
    e.n_unscored_runs,
    e.is_default,
    coalesce(m.display_name, e.model) AS display_name,
    e.split,
    e.run_id
FROM errors AS e
LEFT JOIN models AS m ON m.model = e.model;

COMMENT ON VIEW board_cells IS 'Every number a leaderboard shows, one row per board, question set, cell and run: the semantic layer the explorer, etl leaderboard, the notebook API and the report read (filters and projections of it, never a rule of their own). A board is a benchmark and mode scored one way (board_scorer: default, each run by its own default scorer; or a scorer''s name). question_set: all (each run''s own questions) or shared (only the questions every run of the board has). level: overall, group (one task group) or task (one task). score = micro mean of the per-question scores; rank within the board, question set and cell; ci_low / ci_high the default interval, 95% clustered by patient (docs/STATISTICS.md says why), ci_naive_low / ci_naive_high the naive 95% normal interval. leaderboard, leaderboard_all_scorers, leaderboard_by_task*, leaderboard_by_group*, leaderboard_clustered* and leaderboard_common are its projections.';
COMMENT ON COLUMN board_cells.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN board_cells.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN board_cells.board_scorer IS 'How the board is scored: default (each run by its own default scorer: the leaderboard) or a scorer name (every run that can be shown with it, by it).';
COMMENT ON COLUMN board_cells.question_set IS 'all: each run''s own questions; shared: only the questions every run of the board has, so every score of the board is over the same questions.';
COMMENT ON COLUMN board_cells.level IS 'overall (every question of the run), group (one task group) or task (one task).';
COMMENT ON COLUMN board_cells.task_group IS 'Task group of a group or task cell; NULL for overall.';
COMMENT ON COLUMN board_cells.task IS 'Task of a task cell; NULL otherwise.';
COMMENT ON COLUMN board_cells.scorer IS 'Scorer that made the number (the run''s default on the default board).';
COMMENT ON COLUMN board_cells.model IS 'Canonical model key.';
COMMENT ON COLUMN board_cells.n_questions IS 'Questions behind the score (n): distinct questions of the cell with a score.';
COMMENT ON COLUMN board_cells.score IS 'Micro mean over the cell''s questions of the per-question score (mean over its attempts), a fraction in [0, 1].';
COMMENT ON COLUMN board_cells.rank IS 'Competition rank by score within the board, question set and cell (1 = best; ties share a rank).';
COMMENT ON COLUMN board_cells.ci_low IS 'The default interval: lower end of the 95% interval clustered by patient, score - 1.959964 se_clustered (not clipped); NULL when every question is of one patient (single_cluster).';
COMMENT ON COLUMN board_cells.ci_high IS 'The default interval: upper end of the 95% interval clustered by patient, score + 1.959964 se_clustered (not clipped); NULL for a single cluster.';
COMMENT ON COLUMN board_cells.ci_naive_low IS 'Lower end of the naive 95% interval (normal approximation, questions taken as independent: score - 1.96 sd / sqrt(n)), clipped to 0; NULL for n = 1.';
COMMENT ON COLUMN board_cells.ci_naive_high IS 'Upper end of the naive 95% interval, clipped to 1; NULL for n = 1.';
COMMENT ON COLUMN board_cells.se_naive IS 'Sample standard deviation (n - 1) / sqrt(n): the standard error if questions were independent; NULL for n = 1.';
COMMENT ON COLUMN board_cells.se_clustered IS 'Standard error clustered by patient: sqrt(sum over clusters c of (sum over questions i of c of (s_i - m))^2) / n (Miller 2024, no small-sample correction); 0 for a single cluster.';
COMMENT ON COLUMN board_cells.n_clusters IS 'Distinct patients (clusters) among the questions; a question of unknown patient is its own.';
COMMENT ON COLUMN board_cells.design_effect IS '(se_clustered / se_naive)^2: above 1 the patients'' questions move together and the clustered interval is the wider; below 1 (at most (n - 1) / n when every patient has one question) it is the narrower. NULL when se_naive is 0 or NULL or for a single cluster.';
COMMENT ON COLUMN board_cells.single_cluster IS 'True when every question of the cell is of one patient: the clustered standard error is 0 by the formula, which is no certainty, so there is no default interval.';
COMMENT ON COLUMN board_cells.n_error_runs IS 'Attempts (qid, run_index) of the cell with status error.';
COMMENT ON COLUMN board_cells.n_unscored_runs IS 'Attempts with no row of the scorer (scored 0).';
COMMENT ON COLUMN board_cells.is_default IS 'True when scorer is the run''s default scorer.';
COMMENT ON COLUMN board_cells.display_name IS 'Human model name from models; the key itself when models has none.';
COMMENT ON COLUMN board_cells.split IS 'Full split of the run.';
COMMENT ON COLUMN board_cells.run_id IS 'The run (logical path, see runs).';

CREATE OR REPLACE VIEW leaderboard_all_scorers AS
SELECT
    benchmark,
    mode,
    -- scorer before the numbers: rows of one run differ by scorer first (exports and
    -- diffs that sort rows then pair them the same way whatever the float noise)
    scorer,
    model,
    n_questions,
    score,
    ci_low,
    ci_high,
    rank,
    display_name,
    split,
    run_id,
    scorer AS score_source,
    n_error_runs,
    n_unscored_runs,
    is_default,
    ci_naive_low,
    ci_naive_high,
    n_clusters,
    design_effect,
    single_cluster
FROM board_cells
WHERE board_scorer <> 'default' AND question_set = 'all' AND level = 'overall';

COMMENT ON VIEW leaderboard_all_scorers IS 'The leaderboard once per scorer (see leaderboard_scorers; board_cells of the scorer boards, all questions, overall): one row per current full-split run and scorer, score = micro mean over the questions present in the run of the per-question score (mean over its runs). rank: competition rank by score within (benchmark, mode, scorer). ci_low / ci_high: the default interval, 95% clustered by patient; ci_naive_*: the naive one. The rows with is_default are the numbers of leaderboard (whose rank is within (benchmark, mode) over default rows).';
COMMENT ON COLUMN leaderboard_all_scorers.benchmark IS 'Benchmark of the run: ehr_bench, agent_ehr_bench, mm_bench, ...';
COMMENT ON COLUMN leaderboard_all_scorers.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_all_scorers.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN leaderboard_all_scorers.n_questions IS 'Distinct questions present in the run (the denominator of the micro mean).';
COMMENT ON COLUMN leaderboard_all_scorers.score IS 'Micro mean of per-question scores by this scorer, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard_all_scorers.ci_low IS 'Lower end of the default interval: 95% clustered by patient (board_cells.ci_low).';
COMMENT ON COLUMN leaderboard_all_scorers.ci_high IS 'Upper end of the default interval: 95% clustered by patient (board_cells.ci_high).';
COMMENT ON COLUMN leaderboard_all_scorers.rank IS 'Rank by score within (benchmark, mode, scorer), 1 = best; ties share a rank.';
COMMENT ON COLUMN leaderboard_all_scorers.display_name IS 'Human model name from models; the key itself when models has none.';
COMMENT ON COLUMN leaderboard_all_scorers.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_all_scorers.run_id IS 'The run the row scores (logical path, see runs).';
COMMENT ON COLUMN leaderboard_all_scorers.score_source IS 'Same as scorer.';
COMMENT ON COLUMN leaderboard_all_scorers.n_error_runs IS 'Result rows (qid, run_index) of the run with status error; a count of result rows, not of questions.';
COMMENT ON COLUMN leaderboard_all_scorers.n_unscored_runs IS 'Result rows (qid, run_index) with no row of the scorer (scored 0); a count of result rows, not of questions.';
COMMENT ON COLUMN leaderboard_all_scorers.scorer IS 'Scorer that made the number (see leaderboard_scorers).';
COMMENT ON COLUMN leaderboard_all_scorers.is_default IS 'True for the run''s default scorer (the row leaderboard shows).';
COMMENT ON COLUMN leaderboard_all_scorers.ci_naive_low IS 'Lower end of the naive 95% normal interval (questions taken as independent), clipped to 0; NULL for n = 1.';
COMMENT ON COLUMN leaderboard_all_scorers.ci_naive_high IS 'Upper end of the naive 95% normal interval, clipped to 1; NULL for n = 1.';
COMMENT ON COLUMN leaderboard_all_scorers.n_clusters IS 'Distinct patients among the questions.';
COMMENT ON COLUMN leaderboard_all_scorers.design_effect IS '(se_clustered / se_naive)^2 (board_cells.design_effect).';
COMMENT ON COLUMN leaderboard_all_scorers.single_cluster IS 'True when every question is of one patient (no default interval).';

CREATE OR REPLACE VIEW leaderboard AS
SELECT
    benchmark,
    mode,
    model,
    n_questions,
    score,
    ci_low,
    ci_high,
    rank,
    display_name,
    split,
    run_id,
    scorer AS score_source,
    n_error_runs,
    n_unscored_runs,
    scorer,
    ci_naive_low,
    ci_naive_high,
    n_clusters,
    design_effect,
    single_cluster
FROM board_cells
WHERE board_scorer = 'default' AND question_set = 'all' AND level = 'overall';

COMMENT ON VIEW leaderboard IS 'One row per current (not archived) full-split run (board_cells of the default board, all questions, overall): score = micro mean over the questions present in the run of the per-question score (mean over its runs), by the run''s default scorer (scorer): authors_text for text benchmarks (the benchmark authors'' score_text.py rules, status not consulted); for mm_bench the authors'' unified score from rescored rows, else scored rows (the authors'' fallback), else set_f1, error and incomplete results 0. Other scorers: leaderboard_all_scorers. ci_low/ci_high: the default interval, 95% clustered by patient (score -+ 1.959964 se_clustered, not clipped; NULL when every question is of one patient); ci_naive_low/ci_naive_high: the naive 95% normal interval (mean +- 1.96 sd / sqrt(n), clipped to [0, 1], NULL for n = 1). rank: competition rank by score within (benchmark, mode). Runs with no per-question score rows at all are not shown (a summary-number fallback is not implemented yet).';
COMMENT ON COLUMN leaderboard.benchmark IS 'Benchmark of the run: ehr_bench, agent_ehr_bench, mm_bench, ...';
COMMENT ON COLUMN leaderboard.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN leaderboard.n_questions IS 'Distinct questions present in the run (the denominator of the micro mean).';
COMMENT ON COLUMN leaderboard.score IS 'Micro mean of per-question scores, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard.ci_low IS 'Lower end of the default interval: 95% clustered by patient, not clipped; NULL for a single cluster.';
COMMENT ON COLUMN leaderboard.ci_high IS 'Upper end of the default interval: 95% clustered by patient, not clipped; NULL for a single cluster.';
COMMENT ON COLUMN leaderboard.rank IS 'Rank by score within (benchmark, mode), 1 = best; ties share a rank.';
COMMENT ON COLUMN leaderboard.display_name IS 'Human model name from models; the key itself when models has none.';
COMMENT ON COLUMN leaderboard.split IS 'Full split of the run: full1800, subset600, full2703 or another full*.';
COMMENT ON COLUMN leaderboard.run_id IS 'The run the row scores (logical path, see runs).';
COMMENT ON COLUMN leaderboard.score_source IS 'Scorer of the per-question rows: authors_text, scored, rescored or set_f1 (same as scorer).';
COMMENT ON COLUMN leaderboard.n_error_runs IS 'Result rows (qid, run_index) of the run with status error; a count of result rows, not of questions.';
COMMENT ON COLUMN leaderboard.n_unscored_runs IS 'Result rows (qid, run_index) with no row of the score_source scorer (scored 0); a count of result rows, not of questions.';
COMMENT ON COLUMN leaderboard.scorer IS 'Scorer that made the number: authors_text (text benchmarks), scored / rescored / set_f1 (mm_bench).';
COMMENT ON COLUMN leaderboard.ci_naive_low IS 'Lower end of the naive 95% normal interval (questions taken as independent), clipped to 0; NULL for n = 1.';
COMMENT ON COLUMN leaderboard.ci_naive_high IS 'Upper end of the naive 95% normal interval, clipped to 1; NULL for n = 1.';
COMMENT ON COLUMN leaderboard.n_clusters IS 'Distinct patients among the questions (a question of unknown patient is its own).';
COMMENT ON COLUMN leaderboard.design_effect IS '(se_clustered / se_naive)^2 (board_cells.design_effect).';
COMMENT ON COLUMN leaderboard.single_cluster IS 'True when every question is of one patient (no default interval).';

CREATE OR REPLACE VIEW leaderboard_by_task_all_scorers AS
SELECT
    benchmark, mode, scorer, model, task, task_group, n_questions, score, split, run_id,
    scorer AS score_source, is_default, ci_low, ci_high, ci_naive_low, ci_naive_high, rank
FROM board_cells
WHERE board_scorer <> 'default' AND question_set = 'all' AND level = 'task';

COMMENT ON VIEW leaderboard_by_task_all_scorers IS 'Per leaderboard run, task and scorer (see leaderboard_scorers; board_cells of the scorer boards, all questions, level task): score = micro mean over the task''s questions of the per-question score (mean over runs); is_default rows are leaderboard_by_task.';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.task IS 'Task name (results.task).';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.task_group IS 'Group of the task: risk_prediction / decision_making, or the multimodal task family.';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.n_questions IS 'Distinct questions of the task present in the run (the denominator of the micro mean).';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.score IS 'Micro mean over the task''s questions of the per-question score, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.run_id IS 'The run the row scores (see runs).';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.score_source IS 'Same as scorer.';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.scorer IS 'Scorer that made the number.';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.is_default IS 'True for the run''s default scorer.';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.ci_low IS 'Lower end of the default interval, 95% clustered by patient (board_cells.ci_low).';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.ci_high IS 'Upper end of the default interval, 95% clustered by patient (board_cells.ci_high).';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.ci_naive_low IS 'Lower end of the naive 95% normal interval, clipped to 0.';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.ci_naive_high IS 'Upper end of the naive 95% normal interval, clipped to 1.';
COMMENT ON COLUMN leaderboard_by_task_all_scorers.rank IS 'Rank by score among the runs of the board on this task.';

CREATE OR REPLACE VIEW leaderboard_by_task AS
SELECT benchmark, mode, model, task, task_group, n_questions, score, split, run_id,
    scorer AS score_source, scorer, ci_low, ci_high, ci_naive_low, ci_naive_high, rank
FROM board_cells
WHERE board_scorer = 'default' AND question_set = 'all' AND level = 'task';

COMMENT ON VIEW leaderboard_by_task IS 'Per leaderboard run and task (board_cells of the default board, all questions, level task): score = micro mean over the task''s questions of the per-question score (mean over runs), same default scorer as leaderboard (see scorer), with the default interval (clustered by patient) and the naive one.';
COMMENT ON COLUMN leaderboard_by_task.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_by_task.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_by_task.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN leaderboard_by_task.task IS 'Task name (results.task).';
COMMENT ON COLUMN leaderboard_by_task.task_group IS 'Group of the task: risk_prediction / decision_making, or the multimodal task family.';
COMMENT ON COLUMN leaderboard_by_task.n_questions IS 'Distinct questions of the task present in the run (the denominator of the micro mean).';
COMMENT ON COLUMN leaderboard_by_task.score IS 'Micro mean over the task''s questions of the per-question score, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard_by_task.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_by_task.run_id IS 'The run the row scores (see runs).';
COMMENT ON COLUMN leaderboard_by_task.score_source IS 'Scorer of the per-question rows: authors_text, scored, rescored or set_f1 (same as scorer).';
COMMENT ON COLUMN leaderboard_by_task.scorer IS 'Scorer that made the number.';
COMMENT ON COLUMN leaderboard_by_task.ci_low IS 'Lower end of the default interval, 95% clustered by patient (board_cells.ci_low).';
COMMENT ON COLUMN leaderboard_by_task.ci_high IS 'Upper end of the default interval, 95% clustered by patient (board_cells.ci_high).';
COMMENT ON COLUMN leaderboard_by_task.ci_naive_low IS 'Lower end of the naive 95% normal interval, clipped to 0.';
COMMENT ON COLUMN leaderboard_by_task.ci_naive_high IS 'Upper end of the naive 95% normal interval, clipped to 1.';
COMMENT ON COLUMN leaderboard_by_task.rank IS 'Rank by score among the runs of the board on this task.';

CREATE OR REPLACE VIEW leaderboard_by_group_all_scorers AS
SELECT
    benchmark, mode, scorer, model, task_group, n_questions, score, split, run_id,
    scorer AS score_source, is_default, ci_low, ci_high, ci_naive_low, ci_naive_high, rank
FROM board_cells
WHERE board_scorer <> 'default' AND question_set = 'all' AND level = 'group';

COMMENT ON VIEW leaderboard_by_group_all_scorers IS 'Per leaderboard run, task group and scorer (see leaderboard_scorers; board_cells of the scorer boards, all questions, level group): score = micro mean over the group''s questions; is_default rows are leaderboard_by_group.';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.task_group IS 'risk_prediction / decision_making for text tasks, the task family for multimodal ones.';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.n_questions IS 'Distinct questions of the group present in the run (the denominator of the micro mean).';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.score IS 'Micro mean over the group''s questions of the per-question score, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.run_id IS 'The run the row scores (see runs).';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.score_source IS 'Same as scorer.';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.scorer IS 'Scorer that made the number.';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.is_default IS 'True for the run''s default scorer.';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.ci_low IS 'Lower end of the default interval, 95% clustered by patient (board_cells.ci_low).';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.ci_high IS 'Upper end of the default interval, 95% clustered by patient (board_cells.ci_high).';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.ci_naive_low IS 'Lower end of the naive 95% normal interval, clipped to 0.';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.ci_naive_high IS 'Upper end of the naive 95% normal interval, clipped to 1.';
COMMENT ON COLUMN leaderboard_by_group_all_scorers.rank IS 'Rank by score among the runs of the board in this group.';

CREATE OR REPLACE VIEW leaderboard_by_group AS
SELECT benchmark, mode, model, task_group, n_questions, score, split, run_id,
    scorer AS score_source, scorer, ci_low, ci_high, ci_naive_low, ci_naive_high, rank
FROM board_cells
WHERE board_scorer = 'default' AND question_set = 'all' AND level = 'group';

COMMENT ON VIEW leaderboard_by_group IS 'Per leaderboard run and task group (risk_prediction / decision_making, or the multimodal task family; board_cells of the default board, all questions, level group): score = micro mean over the group''s questions (groups weigh by their size, as the paper''s Overall), same default scorer as leaderboard, with the default interval (clustered by patient) and the naive one.';
COMMENT ON COLUMN leaderboard_by_group.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_by_group.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_by_group.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN leaderboard_by_group.task_group IS 'risk_prediction / decision_making for text tasks, the task family for multimodal ones.';
COMMENT ON COLUMN leaderboard_by_group.n_questions IS 'Distinct questions of the group present in the run (the denominator of the micro mean).';
COMMENT ON COLUMN leaderboard_by_group.score IS 'Micro mean over the group''s questions of the per-question score, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard_by_group.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_by_group.run_id IS 'The run the row scores (see runs).';
COMMENT ON COLUMN leaderboard_by_group.score_source IS 'Scorer of the per-question rows: authors_text, scored, rescored or set_f1 (same as scorer).';
COMMENT ON COLUMN leaderboard_by_group.scorer IS 'Scorer that made the number.';
COMMENT ON COLUMN leaderboard_by_group.ci_low IS 'Lower end of the default interval, 95% clustered by patient (board_cells.ci_low).';
COMMENT ON COLUMN leaderboard_by_group.ci_high IS 'Upper end of the default interval, 95% clustered by patient (board_cells.ci_high).';
COMMENT ON COLUMN leaderboard_by_group.ci_naive_low IS 'Lower end of the naive 95% normal interval, clipped to 0.';
COMMENT ON COLUMN leaderboard_by_group.ci_naive_high IS 'Upper end of the naive 95% normal interval, clipped to 1.';
COMMENT ON COLUMN leaderboard_by_group.rank IS 'Rank by score among the runs of the board in this group.';

CREATE OR REPLACE VIEW leaderboard_best_at_k AS
SELECT
    lr.benchmark,
    lr.mode,
    lr.model,
    b.scorer,
    b.k,
    count(*) AS n_questions,
    avg(b.best_at_k) AS score,
    max(b.n_runs) AS max_runs,
    lr.split,
    lr.run_id
FROM question_best_at_k AS b
JOIN leaderboard_runs AS lr ON lr.run_id = b.run_id
GROUP BY lr.benchmark, lr.mode, lr.model, b.scorer, b.k, lr.split, lr.run_id;

COMMENT ON VIEW leaderboard_best_at_k IS 'best@k over runs for leaderboard runs whose questions have several runs (runs_per_question > 1): score = micro mean over the run''s questions of score_text.py calculate_true_best_at_k of the question''s authors_text F1 values (expected best of k runs drawn without replacement; a question with fewer than k runs counts with all of them). k = 1 equals the leaderboard score.';
COMMENT ON COLUMN leaderboard_best_at_k.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_best_at_k.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_best_at_k.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN leaderboard_best_at_k.scorer IS 'Scorer of the per-run F1 values: authors_text.';
COMMENT ON COLUMN leaderboard_best_at_k.k IS 'Number of runs drawn, 1..max_runs.';
COMMENT ON COLUMN leaderboard_best_at_k.n_questions IS 'Questions of the run (the denominator of the micro mean).';
COMMENT ON COLUMN leaderboard_best_at_k.score IS 'Micro mean over questions of best@k, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard_best_at_k.max_runs IS 'Most runs any question of the run has.';
COMMENT ON COLUMN leaderboard_best_at_k.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_best_at_k.run_id IS 'The run the row scores (see runs).';

CREATE OR REPLACE VIEW scorer_disagreements AS
SELECT
    d.benchmark,
    d.mode,
    d.model,
    d.run_id,
    d.qid,
    d.run_index,
    d.task,
    d.status,
    d.scorer AS default_scorer,
    qd.prediction_source AS default_prediction_source,
    qd.predictions AS default_predictions,
    d.score AS default_score,
    n.scorer AS normalized_scorer,
    qn.predictions AS normalized_predictions,
    n.score AS normalized_score,
    d.score - n.score AS delta,
    res.label
FROM leaderboard_result_scores_all AS d
JOIN leaderboard_result_scores_all AS n
    ON n.run_id = d.run_id
    AND n.qid = d.qid
    AND n.run_index = d.run_index
    AND n.scorer = 'set_f1'
JOIN results AS res
    ON res.run_id = d.run_id AND res.qid = d.qid AND res.run_index = d.run_index
LEFT JOIN question_scores AS qd
    ON qd.run_id = d.run_id AND qd.qid = d.qid AND qd.run_index = d.run_index
    AND qd.scorer = d.scorer
LEFT JOIN question_scores AS qn
    ON qn.run_id = d.run_id AND qn.qid = d.qid AND qn.run_index = d.run_index
    AND qn.scorer = 'set_f1'
WHERE d.is_default
    -- the text boards' default (scorers.default_for = 'text': authors_text)
    AND d.scorer IN (SELECT scorer FROM scorers WHERE default_for = 'text')
    AND abs(d.score - n.score) > 1e-12;

COMMENT ON VIEW scorer_disagreements IS 'Results of leaderboard runs scored by the authors'' text scorer (the default) where it and the normalized set_f1 rule give different scores, with both predictions, so the cost of each rule is visible: padded strings, non-string items, Python-literal arguments, finish calls named functions.finish, incomplete runs with an answer, atc_name gold, ...';
COMMENT ON COLUMN scorer_disagreements.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN scorer_disagreements.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN scorer_disagreements.model IS 'Canonical model key.';
COMMENT ON COLUMN scorer_disagreements.run_id IS 'Leaderboard run of the result.';
COMMENT ON COLUMN scorer_disagreements.qid IS 'Question id.';
COMMENT ON COLUMN scorer_disagreements.run_index IS '1-based run number.';
COMMENT ON COLUMN scorer_disagreements.task IS 'Task of the question.';
COMMENT ON COLUMN scorer_disagreements.status IS 'Normalized status of the result (success, incomplete, error).';
COMMENT ON COLUMN scorer_disagreements.default_scorer IS 'The default scorer: authors_text.';
COMMENT ON COLUMN scorer_disagreements.default_prediction_source IS 'Where the default scorer found the prediction (finish_tool_call, finish_parse_error, finish_tool_call_non_list, no_prediction).';
COMMENT ON COLUMN scorer_disagreements.default_predictions IS 'The prediction list the default scorer scored, JSON text, as extracted (not stripped).';
COMMENT ON COLUMN scorer_disagreements.default_score IS 'Score by the default scorer, as it counts on the leaderboard, a fraction in [0, 1].';
COMMENT ON COLUMN scorer_disagreements.normalized_scorer IS 'The normalized scorer: set_f1.';
COMMENT ON COLUMN scorer_disagreements.normalized_predictions IS 'The normalized prediction items set_f1 scored (results.prediction_items), JSON text.';
COMMENT ON COLUMN scorer_disagreements.normalized_score IS 'Score by set_f1 as it would count (error and incomplete results 0), a fraction in [0, 1].';
COMMENT ON COLUMN scorer_disagreements.delta IS 'default_score - normalized_score.';
COMMENT ON COLUMN scorer_disagreements.label IS 'Gold label as written (results.label, JSON text).';
