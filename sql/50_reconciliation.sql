-- summary_reconciliation: every number of every summary file next to the same number
-- recomputed from the per-question rows of the same run, the way the authors' scorer
-- computes it (UCSC-VLAA/ClinSeekAgent).
--
-- How each number is recomputed
-- * summary (clinseekagent/scoring/score_multimodal.py aggregate()) from question_scores
--   rows of scorer 'scored' (else 'rescored') of the run:
--     total = all rows; incomplete = rows with route incomplete;
--     len1 rows = route llm_judge, plus incomplete rows with len_gold < 2;
--     len2plus rows = route set_f1, plus incomplete rows with len_gold >= 2;
--     len1_count / per_task_len1.count = len1 rows; correct = judge rows with correct;
--     len1_accuracy / accuracy = correct / count; per_task_len1.incomplete = incomplete len1 rows;
--     by_subtype.S = judge rows of subtype S, by_subtype_accuracy.S = their correct share;
--     len2plus_<m> / per_task_len2plus.<m> = mean of m over len2plus rows (incomplete = 0),
--       m in precision, recall, f1, accuracy, subset_match (= exact_match);
--       <m>_raw = mean of coalesce(m_raw, m) (incomplete = 0);
--     unified_<m> / per_task_unified.<m> = mean over set_f1, llm_judge and incomplete rows of
--       m (set rows), the verdict correct as 1/0 (judge rows), 0 (incomplete rows);
--     unified_count = those rows.
-- * summary_vocab (openresearcher_ehr/rescore_mm_vocab.py process_scored_file()) from rows of
--   scorer 'rescored' (else 'scored'): the same, except that incomplete rows are left out of
--   the len1 and len2plus counts and means (len1 = judge rows, len2plus = set rows; incomplete
--   rows only count in unified_*, as zeros), and the per-task len2plus map is called
--   per_task_len2plus_vocab. The rescorer writes no total / incomplete / *_raw numbers and its
--   per_task_len1 entries hold count and accuracy only.
-- * scores (text scorer summaries; summary_metrics.file_shape / writer_rule say which shape
--   and version, etl/extract/summaries.py text_shape):
--   - writer_rule score_text_current (clinseekagent/scoring/score_text.py main(): the payload
--     of --output-dir summary.json and of --output; evaluate_results.py from 96d40fe on wrote
--     {per_task, per_task_type} with the same rules) from question_scores rows of scorer
--     'per_question' of the run, else the rows of view text_scorer_rows (the authors' text
--     scorer, scorer authors_text; set_f1 until that scorer exists), task_type from results;
--   - writer_rule evaluate_results_legacy (flat {task: {...}} files of
--     openresearcher_ehr/helper/evaluate_results.py as of 09dce89) from scorer
--     'authors_text_legacy' rows (etl/scoring/authors_legacy.py: gold = name and atc_name, no
--     string answers); precision / recall / f1 = mean over ALL questions of the task, a
--     question without runs counting 0 (only questions present in the results are known);
--   in both:
--   a question's precision / recall / f1 = mean over its runs; total = questions (a question
--   with runs [] counts); completed = questions with at least one run (not successful runs);
--   runs = run rows; precision / recall / f1 = mean over completed questions;
--   tool_calls_avg / turns_avg = mean over runs (0 without runs), browser_tool_pct =
--   browser calls / tool calls * 100 (0 without calls), counted per run by score_text.py
--   count_tool_calls / count_turns / normalize_tool_name (per_question rows' tool_calls,
--   turns, browser_calls; else results.authors_*); per task (per_task), per task type
--   (per_task_type, questions without one are in no group) and overall;
--   prediction_sources.<source> (per_task / per_task_type) = runs whose prediction_source
--   (question_scores.note) is that source.
--   A reported prediction source that no run of the task has is recomputed as 0 runs
--   (unless the rows carry no prediction source at all: the set_f1 stand-in).
-- * ccs_scores (scores.json of helper/score_diagnoses_ccs_results.py), tool_json (tool.json of
--   helper/analyze_tool_call_averages.py, its status filter in writer_rule) and
--   repair_summary (results.repaired.summary.json): view helper_summary_recomputed.
-- * not_recomputable: multi_summary files (row counts of a raw run, not scores),
--   vocab_threshold (a setting), numbers of runs without per-question rows.
--
-- Percent or fraction: a summary file is read as percent when most of its non-zero rate
-- numbers (accuracy, precision, recall, f1, subset match) exceed 1; recomputed is then
-- written on the reported scale (x 100). Tolerance: rates 1e-4 on the fraction scale
-- (absorbs rounding to 4 decimals, or to 2 decimals of percent), counts 0.5, run means
-- 1e-4 relative.

CREATE OR REPLACE VIEW summary_reconciliation AS
WITH mm_sources AS (
    -- Which per-question rows feed which multimodal summary: summary.json prefers the
    -- scored rows, summary_vocab.json the rescored rows; either falls back to the other.
    SELECT q.run_id, w.scoring, q.scorer,
           row_number() OVER (PARTITION BY q.run_id, w.scoring
                              ORDER BY CASE WHEN q.scorer = w.preferred THEN 0 ELSE 1 END)
               AS pick
    FROM (SELECT DISTINCT run_id, scorer FROM question_scores
          WHERE scorer IN ('scored', 'rescored')) AS q
    CROSS JOIN (VALUES ('summary', 'scored'), ('summary_vocab', 'rescored'))
        AS w(scoring, preferred)
),
mm_rows AS (
    SELECT
        q.run_id,
        s.scoring,
        q.scorer AS source_scorer,
        coalesce(q.task, '?') AS task,
        q.route,
        q.judge_subtype,
        CASE WHEN q.route = 'incomplete' THEN 1 ELSE 0 END AS is_incomplete,
        CASE WHEN q.route = 'llm_judge' THEN 1 ELSE 0 END AS is_judge,
        CASE WHEN q.route = 'llm_judge' AND coalesce(q.correct, 0) > 0 THEN 1 ELSE 0 END
            AS is_correct,
        CASE WHEN q.route = 'llm_judge' THEN 1
             WHEN q.route = 'incomplete' AND s.scoring = 'summary'
                  AND coalesce(q.len_gold, 0) < 2 THEN 1
             ELSE 0 END AS in_len1,
        CASE WHEN q.route = 'set_f1' THEN 1
             WHEN q.route = 'incomplete' AND s.scoring = 'summary'
                  AND coalesce(q.len_gold, 0) >= 2 THEN 1
             ELSE 0 END AS in_len2,
        CASE WHEN q.route IN ('set_f1', 'llm_judge', 'incomplete') THEN 1 ELSE 0 END
            AS in_unified,
        -- set rows: their own metric; incomplete rows: 0 (the scorer appends 0.0)
        CASE WHEN q.route = 'set_f1' THEN coalesce(q.precision, 0) ELSE 0 END AS set_p,
        CASE WHEN q.route = 'set_f1' THEN coalesce(q.recall, 0) ELSE 0 END AS set_r,
        CASE WHEN q.route = 'set_f1' THEN coalesce(q.f1, 0) ELSE 0 END AS set_f,
        CASE WHEN q.route = 'set_f1' THEN coalesce(q.accuracy, 0) ELSE 0 END AS set_a,
        CASE WHEN q.route = 'set_f1' THEN coalesce(q.exact_match, 0) ELSE 0 END AS set_s,
        CASE WHEN q.route = 'set_f1' THEN coalesce(q.precision_raw, q.precision, 0)
             ELSE 0 END AS raw_p,
        CASE WHEN q.route = 'set_f1' THEN coalesce(q.recall_raw, q.recall, 0)
             ELSE 0 END AS raw_r,
        CASE WHEN q.route = 'set_f1' THEN coalesce(q.f1_raw, q.f1, 0) ELSE 0 END AS raw_f,
        CASE WHEN q.route = 'set_f1' THEN coalesce(q.accuracy_raw, q.accuracy, 0)
             ELSE 0 END AS raw_a,
        CASE WHEN q.route = 'set_f1' THEN coalesce(q.exact_match_raw, q.exact_match, 0)
             ELSE 0 END AS raw_s
    FROM question_scores AS q
    JOIN mm_sources AS s ON s.run_id = q.run_id AND s.scorer = q.scorer AND s.pick = 1
),
mm_unified AS (
    -- unified value of a row: set metric, judge verdict as 1/0, incomplete 0
    SELECT *,
        CASE WHEN is_judge = 1 THEN is_correct ELSE set_p END AS u_p,
        CASE WHEN is_judge = 1 THEN is_correct ELSE set_r END AS u_r,
        CASE WHEN is_judge = 1 THEN is_correct ELSE set_f END AS u_f,
        CASE WHEN is_judge = 1 THEN is_correct ELSE set_a END AS u_a,
        CASE WHEN is_judge = 1 THEN is_correct ELSE set_s END AS u_s,
        CASE WHEN is_judge = 1 THEN is_correct ELSE raw_p END AS ur_p,
        CASE WHEN is_judge = 1 THEN is_correct ELSE raw_r END AS ur_r,
        CASE WHEN is_judge = 1 THEN is_correct ELSE raw_f END AS ur_f,
        CASE WHEN is_judge = 1 THEN is_correct ELSE raw_a END AS ur_a,
        CASE WHEN is_judge = 1 THEN is_correct ELSE raw_s END AS ur_s
    FROM mm_rows
),
mm_agg AS (
    -- one row per run and scoring (task NULL) and per run, scoring and task
    SELECT
        run_id, scoring, source_scorer,
        CASE WHEN grouping(task) = 0 THEN task END AS task,
        count(*) AS n_rows,
        count(*) AS total,
        sum(is_incomplete) AS incomplete,
        sum(in_len1) AS len1_count,
        sum(is_correct) AS len1_correct,
        sum(in_len1 * is_incomplete) AS len1_incomplete,
        coalesce(sum(is_correct) / nullif(sum(in_len1), 0), 0) AS len1_accuracy,
        sum(in_len2) AS len2_count,
        sum(in_len2 * is_incomplete) AS len2_incomplete,
        coalesce(sum(in_len2 * set_p) / nullif(sum(in_len2), 0), 0) AS len2_precision,
        coalesce(sum(in_len2 * set_r) / nullif(sum(in_len2), 0), 0) AS len2_recall,
        coalesce(sum(in_len2 * set_f) / nullif(sum(in_len2), 0), 0) AS len2_f1,
        coalesce(sum(in_len2 * set_a) / nullif(sum(in_len2), 0), 0) AS len2_accuracy,
        coalesce(sum(in_len2 * set_s) / nullif(sum(in_len2), 0), 0) AS len2_subset_match,
        coalesce(sum(in_len2 * raw_p) / nullif(sum(in_len2), 0), 0) AS len2_precision_raw,
        coalesce(sum(in_len2 * raw_r) / nullif(sum(in_len2), 0), 0) AS len2_recall_raw,
        coalesce(sum(in_len2 * raw_f) / nullif(sum(in_len2), 0), 0) AS len2_f1_raw,
        coalesce(sum(in_len2 * raw_a) / nullif(sum(in_len2), 0), 0) AS len2_accuracy_raw,
        coalesce(sum(in_len2 * raw_s) / nullif(sum(in_len2), 0), 0)
            AS len2_subset_match_raw,
        sum(in_unified) AS uni_count,
        coalesce(sum(in_unified * u_p) / nullif(sum(in_unified), 0), 0) AS uni_precision,
        coalesce(sum(in_unified * u_r) / nullif(sum(in_unified), 0), 0) AS uni_recall,
        coalesce(sum(in_unified * u_f) / nullif(sum(in_unified), 0), 0) AS uni_f1,
        coalesce(sum(in_unified * u_a) / nullif(sum(in_unified), 0), 0) AS uni_accuracy,
        coalesce(sum(in_unified * u_s) / nullif(sum(in_unified), 0), 0) AS uni_subset_match,
        coalesce(sum(in_unified * ur_p) / nullif(sum(in_unified), 0), 0) AS uni_precision_raw,
        coalesce(sum(in_unified * ur_r) / nullif(sum(in_unified), 0), 0) AS uni_recall_raw,
        coalesce(sum(in_unified * ur_f) / nullif(sum(in_unified), 0), 0) AS uni_f1_raw,
        coalesce(sum(in_unified * ur_a) / nullif(sum(in_unified), 0), 0) AS uni_accuracy_raw,
        coalesce(sum(in_unified * ur_s) / nullif(sum(in_unified), 0), 0)
            AS uni_subset_match_raw
    FROM mm_unified
    GROUP BY GROUPING SETS ((run_id, scoring, source_scorer),
                            (run_id, scoring, source_scorer, task))
),
mm_metric_names AS (
    -- (column of mm_agg, family, metric name inside a per-task map, kind)
    -- overall name = family_metric (len1_count, len2plus_f1_raw, unified_f1, ...)
    SELECT * FROM (VALUES
        ('total', NULL, 'total', 'count'),
        ('incomplete', NULL, 'incomplete', 'count'),
        ('len1_count', 'len1', 'count', 'count'),
        ('len1_correct', 'len1', 'correct', 'count'),
        ('len1_incomplete', 'len1', 'incomplete', 'count'),
        ('len1_accuracy', 'len1', 'accuracy', 'rate'),
        ('len2_count', 'len2plus', 'count', 'count'),
        ('len2_incomplete', 'len2plus', 'incomplete', 'count'),
        ('len2_precision', 'len2plus', 'precision', 'rate'),
        ('len2_recall', 'len2plus', 'recall', 'rate'),
        ('len2_f1', 'len2plus', 'f1', 'rate'),
        ('len2_accuracy', 'len2plus', 'accuracy', 'rate'),
        ('len2_subset_match', 'len2plus', 'subset_match', 'rate'),
        ('len2_precision_raw', 'len2plus', 'precision_raw', 'rate'),
        ('len2_recall_raw', 'len2plus', 'recall_raw', 'rate'),
        ('len2_f1_raw', 'len2plus', 'f1_raw', 'rate'),
        ('len2_accuracy_raw', 'len2plus', 'accuracy_raw', 'rate'),
        ('len2_subset_match_raw', 'len2plus', 'subset_match_raw', 'rate'),
        ('uni_count', 'unified', 'count', 'count'),
        ('uni_precision', 'unified', 'precision', 'rate'),
        ('uni_recall', 'unified', 'recall', 'rate'),
        ('uni_f1', 'unified', 'f1', 'rate'),
        ('uni_accuracy', 'unified', 'accuracy', 'rate'),
        ('uni_subset_match', 'unified', 'subset_match', 'rate'),
        ('uni_precision_raw', 'unified', 'precision_raw', 'rate'),
        ('uni_recall_raw', 'unified', 'recall_raw', 'rate'),
        ('uni_f1_raw', 'unified', 'f1_raw', 'rate'),
        ('uni_accuracy_raw', 'unified', 'accuracy_raw', 'rate'),
        ('uni_subset_match_raw', 'unified', 'subset_match_raw', 'rate')
    ) AS t(col, family, metric, kind)
),
mm_long AS (
    SELECT
        a.run_id, a.scoring, a.source_scorer, a.task, a.n_rows, n.kind,
        CASE
            WHEN a.task IS NULL THEN 'overall'
            WHEN n.family = 'len2plus' AND a.scoring = 'summary_vocab'
                THEN 'per_task_len2plus_vocab'
            ELSE 'per_task_' || n.family
        END AS scope,
        CASE WHEN a.task IS NULL AND n.family IS NOT NULL THEN n.family || '_' || n.metric
             ELSE n.metric END AS metric,
        CASE n.col
            WHEN 'total' THEN a.total
            WHEN 'incomplete' THEN a.incomplete
            WHEN 'len1_count' THEN a.len1_count
            WHEN 'len1_correct' THEN a.len1_correct
            WHEN 'len1_incomplete' THEN a.len1_incomplete
            WHEN 'len1_accuracy' THEN a.len1_accuracy
            WHEN 'len2_count' THEN a.len2_count
            WHEN 'len2_incomplete' THEN a.len2_incomplete
            WHEN 'len2_precision' THEN a.len2_precision
            WHEN 'len2_recall' THEN a.len2_recall
            WHEN 'len2_f1' THEN a.len2_f1
            WHEN 'len2_accuracy' THEN a.len2_accuracy
            WHEN 'len2_subset_match' THEN a.len2_subset_match
            WHEN 'len2_precision_raw' THEN a.len2_precision_raw
            WHEN 'len2_recall_raw' THEN a.len2_recall_raw
            WHEN 'len2_f1_raw' THEN a.len2_f1_raw
            WHEN 'len2_accuracy_raw' THEN a.len2_accuracy_raw
            WHEN 'len2_subset_match_raw' THEN a.len2_subset_match_raw
            WHEN 'uni_count' THEN a.uni_count
            WHEN 'uni_precision' THEN a.uni_precision
            WHEN 'uni_recall' THEN a.uni_recall
            WHEN 'uni_f1' THEN a.uni_f1
            WHEN 'uni_accuracy' THEN a.uni_accuracy
            WHEN 'uni_subset_match' THEN a.uni_subset_match
            WHEN 'uni_precision_raw' THEN a.uni_precision_raw
            WHEN 'uni_recall_raw' THEN a.uni_recall_raw
            WHEN 'uni_f1_raw' THEN a.uni_f1_raw
            WHEN 'uni_accuracy_raw' THEN a.uni_accuracy_raw
            WHEN 'uni_subset_match_raw' THEN a.uni_subset_match_raw
        END::DOUBLE AS value
    FROM mm_agg AS a
    CROSS JOIN mm_metric_names AS n
    -- total / incomplete exist only at the top level of the file
    WHERE n.family IS NOT NULL OR a.task IS NULL
),
mm_subtypes AS (
    -- per_task_len1.<task>.by_subtype.<S> and by_subtype_accuracy.<S> (judge rows only)
    SELECT run_id, scoring, source_scorer, task, count(*) AS n_rows, kind,
           'per_task_len1' AS scope,
           CASE WHEN kind = 'count' THEN 'by_subtype.' ELSE 'by_subtype_accuracy.' END
               || coalesce(judge_subtype, '?') AS metric,
           CASE WHEN kind = 'count' THEN count(*)::DOUBLE
                ELSE sum(is_correct)::DOUBLE / count(*) END AS value
    FROM mm_rows
    CROSS JOIN (VALUES ('count'), ('rate')) AS k(kind)
    WHERE is_judge = 1
    GROUP BY run_id, scoring, source_scorer, task, judge_subtype, kind
),
text_rules AS (
    -- which rule wrote each run's text summaries (summary_metrics.writer_rule)
    SELECT DISTINCT run_id, writer_rule FROM summary_metrics
    WHERE scoring = 'scores' AND writer_rule IS NOT NULL
),
text_source AS (
    -- score_text_current: per_question rows where the run has them, else the text scorer
    -- rows (view text_scorer_rows); evaluate_results_legacy: the legacy scorer's rows.
    -- Tool statistics: the per_question row's own counts, else the result's.
    SELECT q.run_id, t.writer_rule, q.scorer, q.qid, q.run_index,
           coalesce(q.task, 'unknown') AS task,
           coalesce(q.task_type, r.task_type) AS task_type,
           q.precision, q.recall, q.f1,
           coalesce(q.tool_calls, r.authors_tool_calls) AS tool_calls,
           coalesce(q.turns, r.authors_turns) AS turns,
           coalesce(q.browser_calls, r.authors_browser_calls) AS browser_calls,
           q.note AS prediction_source,
           CASE WHEN q.run_index IS NULL THEN 0 ELSE 1 END AS is_run
    FROM question_scores AS q
    JOIN text_rules AS t ON t.run_id = q.run_id AND t.writer_rule = 'score_text_current'
    LEFT JOIN results AS r
        ON r.run_id = q.run_id AND r.qid = q.qid AND r.run_index = q.run_index
    WHERE q.scorer = 'per_question'
    UNION ALL
    SELECT q.run_id, t.writer_rule, q.scorer, q.qid, q.run_index,
           coalesce(q.task, r.task, 'unknown'), r.task_type,
           q.precision, q.recall, q.f1,
           r.authors_tool_calls, r.authors_turns, r.authors_browser_calls,
           q.prediction_source, 1
    FROM text_scorer_rows AS q
    JOIN text_rules AS t ON t.run_id = q.run_id AND t.writer_rule = 'score_text_current'
    LEFT JOIN results AS r
        ON r.run_id = q.run_id AND r.qid = q.qid AND r.run_index = q.run_index
    WHERE NOT EXISTS (SELECT 1 FROM question_scores AS p
                      WHERE p.run_id = q.run_id AND p.scorer = 'per_question')
    UNION ALL
    SELECT q.run_id, t.writer_rule, q.scorer, q.qid, q.run_index,
           coalesce(q.task, r.task, 'unknown'), r.task_type,
           q.precision, q.recall, q.f1,
           r.authors_tool_calls, r.authors_turns, r.authors_browser_calls,
           q.note, 1
    FROM question_scores AS q
    JOIN text_rules AS t ON t.run_id = q.run_id AND t.writer_rule = 'evaluate_results_legacy'
    LEFT JOIN results AS r
        ON r.run_id = q.run_id AND r.qid = q.qid AND r.run_index = q.run_index
    WHERE q.scorer = 'authors_text_legacy'
),
text_questions AS (
    SELECT run_id, writer_rule, scorer, qid, task, task_type,
           sum(is_run) AS n_runs,
           avg(coalesce(precision, 0)) FILTER (WHERE is_run = 1) AS q_precision,
           avg(coalesce(recall, 0)) FILTER (WHERE is_run = 1) AS q_recall,
           avg(coalesce(f1, 0)) FILTER (WHERE is_run = 1) AS q_f1,
           sum(tool_calls) FILTER (WHERE is_run = 1) AS sum_tool_calls,
           sum(turns) FILTER (WHERE is_run = 1) AS sum_turns,
           sum(browser_calls) FILTER (WHERE is_run = 1) AS sum_browser_calls,
           -- runs without a count leave the run means undefined (NULL: not recomputable)
           count(*) FILTER (WHERE is_run = 1 AND tool_calls IS NULL) AS runs_without_tools,
           count(*) FILTER (WHERE is_run = 1 AND turns IS NULL) AS runs_without_turns,
           count(*) FILTER (WHERE is_run = 1 AND browser_calls IS NULL) AS runs_without_browser
    FROM text_source
    GROUP BY run_id, writer_rule, scorer, qid, task, task_type
),
text_agg AS (
    SELECT * FROM (
    SELECT
        run_id, writer_rule, scorer AS source_scorer,
        CASE WHEN grouping(task) = 0 THEN 'per_task'
             WHEN grouping(task_type) = 0 THEN 'per_task_type'
             ELSE 'overall' END AS scope,
        CASE WHEN grouping(task) = 0 THEN task
             WHEN grouping(task_type) = 0 THEN task_type END AS task,
        count(*) AS n_rows,
        count(*) AS total,
        count(*) FILTER (WHERE n_runs > 0) AS completed,
        sum(n_runs) AS runs,
        -- legacy: a question without runs scored 0 and counted; current: only answered ones
        CASE WHEN writer_rule = 'evaluate_results_legacy'
             THEN coalesce(avg(coalesce(q_precision, 0)), 0)
             ELSE coalesce(avg(q_precision) FILTER (WHERE n_runs > 0), 0) END AS precision,
        CASE WHEN writer_rule = 'evaluate_results_legacy'
             THEN coalesce(avg(coalesce(q_recall, 0)), 0)
             ELSE coalesce(avg(q_recall) FILTER (WHERE n_runs > 0), 0) END AS recall,
        CASE WHEN writer_rule = 'evaluate_results_legacy'
             THEN coalesce(avg(coalesce(q_f1, 0)), 0)
             ELSE coalesce(avg(q_f1) FILTER (WHERE n_runs > 0), 0) END AS f1,
        CASE WHEN sum(runs_without_tools) = 0
             THEN coalesce(sum(sum_tool_calls) / nullif(sum(n_runs), 0), 0) END
            AS tool_calls_avg,
        CASE WHEN sum(runs_without_turns) = 0
             THEN coalesce(sum(sum_turns) / nullif(sum(n_runs), 0), 0) END AS turns_avg,
        CASE WHEN sum(runs_without_tools) = 0 AND sum(runs_without_browser) = 0
             THEN coalesce(sum(sum_browser_calls) * 100.0 / nullif(sum(sum_tool_calls), 0), 0)
        END AS browser_tool_pct
    FROM text_questions
    GROUP BY GROUPING SETS ((run_id, writer_rule, scorer), (run_id, writer_rule, scorer, task),
                            (run_id, writer_rule, scorer, task_type))
    ) AS grouped
    -- questions without a task_type are in no per_task_type group: a WHERE around the
    -- grouping, not a HAVING (Spark's HAVING sees only the select list, Trino's no aliases)
    WHERE scope <> 'per_task_type' OR task IS NOT NULL
),
text_long AS (
    SELECT a.run_id, 'scores' AS scoring, a.writer_rule, a.source_scorer, a.task, a.n_rows,
           n.kind, a.scope, n.metric,
           CASE n.metric
               WHEN 'total' THEN a.total
               WHEN 'completed' THEN a.completed
               WHEN 'runs' THEN a.runs
               WHEN 'precision' THEN a.precision
               WHEN 'recall' THEN a.recall
               WHEN 'f1' THEN a.f1
               WHEN 'tool_calls_avg' THEN a.tool_calls_avg
               WHEN 'turns_avg' THEN a.turns_avg
               WHEN 'browser_tool_pct' THEN a.browser_tool_pct
           END::DOUBLE AS value
    FROM text_agg AS a
    CROSS JOIN (VALUES ('total', 'count'), ('completed', 'count'), ('runs', 'count'),
                       ('precision', 'rate'), ('recall', 'rate'), ('f1', 'rate'),
                       ('tool_calls_avg', 'mean'), ('turns_avg', 'mean'),
                       ('browser_tool_pct', 'percent'))
        AS n(metric, kind)
),
text_sources AS (
    -- per_task / per_task_type .prediction_sources.<source>: runs per prediction_source
    -- (score_text.py counts every run's source; the overall block has no such map). Only
    -- sources that are plain names, so 'prediction_sources.' || source is their json metric.
    SELECT * FROM (
    SELECT run_id, 'scores' AS scoring, writer_rule, scorer AS source_scorer,
           CASE WHEN grouping(task) = 0 THEN task ELSE task_type END AS task,
           count(DISTINCT qid) AS n_rows, 'count' AS kind,
           CASE WHEN grouping(task) = 0 THEN 'per_task' ELSE 'per_task_type' END AS scope,
           'prediction_sources.' || prediction_source AS metric, count(*)::DOUBLE AS value
    FROM text_source
    WHERE is_run = 1 AND regexp_matches(prediction_source, '^[A-Za-z_][A-Za-z0-9_\-]*$')
    GROUP BY GROUPING SETS ((run_id, writer_rule, scorer, prediction_source, task),
                            (run_id, writer_rule, scorer, prediction_source, task_type))
    ) AS grouped
    -- questions without a task_type are in no per_task_type group: a WHERE around the
    -- grouping, not a HAVING (Spark's HAVING sees only the select list, Trino's no aliases)
    WHERE scope = 'per_task' OR task IS NOT NULL
),
text_runs_with_sources AS (
    -- a run whose rows carry no prediction_source at all (the set_f1 fallback) cannot say
    -- that a source is absent; otherwise an absent source is 0 runs
    SELECT DISTINCT run_id, writer_rule FROM text_source WHERE prediction_source IS NOT NULL
),
recomputed AS (
    SELECT run_id, scoring, writer_rule, source_scorer, scope, task, metric, kind, value,
           n_rows
    FROM text_sources
    UNION ALL
    SELECT run_id, scoring, NULL, source_scorer, scope, task, metric, kind, value, n_rows
    FROM mm_long
    UNION ALL
    SELECT run_id, scoring, NULL, source_scorer, scope, task, metric, kind, value, n_rows
    FROM mm_subtypes
    UNION ALL
    SELECT run_id, scoring, writer_rule, source_scorer, scope, task, metric, kind, value,
           n_rows
    FROM text_long
    WHERE value IS NOT NULL
    UNION ALL
    -- the helper scripts' summaries (sql/48_helper_recompute.sql)
    SELECT run_id, scoring, writer_rule, source_scorer, scope, task, metric, kind, value,
           n_rows
    FROM helper_summary_recomputed
),
paired AS (
    SELECT s.file_id, s.run_id, s.scoring, s.scope, s.task, s.metric, s.json_path,
           s.value AS reported, s.writer_rule, s.file_shape,
           coalesce(r.value, CASE WHEN s.metric LIKE 'prediction\_sources.%' ESCAPE '\'
                                       AND w.run_id IS NOT NULL THEN 0.0 END)
               AS recomputed_fraction,
           coalesce(r.kind, CASE WHEN w.run_id IS NOT NULL THEN 'count' END) AS kind,
           r.n_rows, r.source_scorer
    FROM summary_metrics AS s
    LEFT JOIN recomputed AS r
        ON r.run_id = s.run_id AND r.scoring = s.scoring AND r.scope = s.scope
       AND r.task IS NOT DISTINCT FROM s.task AND r.metric = s.metric
       AND r.writer_rule IS NOT DISTINCT FROM s.writer_rule
    LEFT JOIN text_runs_with_sources AS w
        ON w.run_id = s.run_id AND w.writer_rule = s.writer_rule
       AND s.metric LIKE 'prediction\_sources.%' ESCAPE '\'
),
file_scale AS (
    -- percent when most non-zero rate numbers of the file exceed 1
    SELECT file_id,
           CASE WHEN count(*) FILTER (WHERE reported > 1)
                     > count(*) FILTER (WHERE reported > 0 AND reported <= 1)
                THEN 100.0 ELSE 1.0 END AS scale
    FROM paired
    WHERE kind = 'rate'
    GROUP BY file_id
),
damaged AS (
    -- runs whose per-question score files lost lines: their sums cannot be trusted
    SELECT f.run_id, f.kind AS scorer, count(*) AS n_rejected
    FROM rejects AS j
    JOIN files AS f ON f.file_id = j.file_id
    WHERE j.severity = 'error' AND f.kind IN ('scored', 'rescored', 'per_question')
    GROUP BY f.run_id, f.kind
),
compared AS (
    SELECT p.*,
           CASE WHEN p.kind = 'rate' THEN coalesce(fs.scale, 1.0) ELSE 1.0 END AS scale,
           p.recomputed_fraction
               * CASE WHEN p.kind = 'rate' THEN coalesce(fs.scale, 1.0) ELSE 1.0 END
               AS recomputed,
           coalesce(d.n_rejected, 0) AS source_rejected_lines
    FROM paired AS p
    LEFT JOIN file_scale AS fs ON fs.file_id = p.file_id
    LEFT JOIN damaged AS d ON d.run_id = p.run_id AND d.scorer = p.source_scorer
)
SELECT
    run_id,
    scoring,
    task,
    metric,
    reported,
    recomputed,
    abs(reported - recomputed) AS abs_diff,
    CASE
        WHEN recomputed IS NULL THEN 'not_recomputable'
        WHEN CASE kind
                 WHEN 'count' THEN abs(reported - recomputed) < 0.5
                 WHEN 'rate' THEN abs(reported - recomputed) / scale <= 1e-4
                 ELSE abs(reported - recomputed) <= 1e-4 * greatest(1.0, abs(recomputed))
             END THEN 'match'
        WHEN source_rejected_lines > 0 THEN 'damaged_source'
        ELSE 'mismatch'
    END AS status,
    scope,
    json_path,
    file_id,
    n_rows AS n_questions,
    source_scorer,
    kind AS metric_kind,
    CASE WHEN kind = 'rate' THEN CASE WHEN scale = 100 THEN 'percent' ELSE 'fraction' END
         WHEN kind IS NOT NULL THEN kind END AS reported_scale,
    source_rejected_lines,
    writer_rule,
    file_shape
FROM compared;

COMMENT ON VIEW summary_reconciliation IS 'Every number of every summary file (summary_metrics) next to the same number recomputed from the per-question score rows of the same run, the way the authors'' scorer computes it: summary.json from scored rows (incomplete rows count in len1 or len2plus by len_gold), summary_vocab.json from rescored rows (incomplete rows only in unified_*), scores.json / the text scorer''s summary.json by the rule of the scorer version that wrote it (writer_rule): score_text_current from per_question rows (else the text scorer rows of view text_scorer_rows; question = mean over runs, task = mean over answered questions, completed = questions with at least one run, prediction_sources = runs per prediction source, tool_calls_avg / turns_avg = mean over runs, browser_tool_pct = browser calls / tool calls * 100, counted as score_text.py count_tool_calls / count_turns do), evaluate_results_legacy (flat files) from the authors_text_legacy rows (questions without runs count 0 in precision / recall / f1). Percent files are detected (most non-zero rates above 1) and recomputed is put on the reported scale. status: match (rates within 1e-4 as fractions, counts within 0.5, run means within 1e-4 relative), mismatch, damaged_source (differs, but the run''s score file lost lines to damage, so the rows are incomplete), not_recomputable (no per-question rows or no rule for this number). The helper scripts'' summaries (scoring ccs_scores: scores.json of score_diagnoses_ccs_results.py, best@k included; tool_json: tool.json of analyze_tool_call_averages.py with its status filter, success_only by default, in writer_rule; repair_summary) are recomputed from every line of the run''s results.jsonl (view helper_summary_recomputed).';
COMMENT ON COLUMN summary_reconciliation.run_id IS 'Run the summary describes (scored/<model> summaries belong to the full2703 run of the model).';
COMMENT ON COLUMN summary_reconciliation.scoring IS 'summary, summary_vocab, scores, multi_summary, ccs_scores, tool_json or repair_summary.';
COMMENT ON COLUMN summary_reconciliation.task IS 'Task (or task type) of the number; NULL for file-level numbers.';
COMMENT ON COLUMN summary_reconciliation.metric IS 'Metric name as in summary_metrics (len2plus_f1, accuracy, by_subtype.yesno, ...).';
COMMENT ON COLUMN summary_reconciliation.reported IS 'The number as written in the summary file.';
COMMENT ON COLUMN summary_reconciliation.recomputed IS 'The number recomputed from per-question rows, on the reported scale (percent when the file is in percent); NULL when not recomputable.';
COMMENT ON COLUMN summary_reconciliation.abs_diff IS '|reported - recomputed| on the reported scale.';
COMMENT ON COLUMN summary_reconciliation.status IS 'match, mismatch, damaged_source or not_recomputable (see the view comment for tolerances).';
COMMENT ON COLUMN summary_reconciliation.scope IS 'Section of the file: overall, per_task_len1, per_task_len2plus(_vocab), per_task_unified, per_task, per_task_type, ...';
COMMENT ON COLUMN summary_reconciliation.json_path IS 'Where the number is in the file.';
COMMENT ON COLUMN summary_reconciliation.file_id IS 'Summary file the number came from (see files).';
COMMENT ON COLUMN summary_reconciliation.n_questions IS 'Per-question rows the recomputation used: score rows (qid, run_index) for multimodal summaries, questions for scores.json.';
COMMENT ON COLUMN summary_reconciliation.source_scorer IS 'question_scores.scorer of the rows used (scored, rescored, per_question, authors_text or its set_f1 stand-in, authors_text_legacy).';
COMMENT ON COLUMN summary_reconciliation.metric_kind IS 'count, rate (fraction in [0, 1]), mean (per-run average such as tool_calls_avg) or percent (browser_tool_pct, always percent; compared like a mean).';
COMMENT ON COLUMN summary_reconciliation.writer_rule IS 'Text summaries: which version of the authors'' text scorer wrote the file, and so which rule recomputed it: score_text_current or evaluate_results_legacy; NULL for multimodal summaries.';
COMMENT ON COLUMN summary_reconciliation.file_shape IS 'Text summaries: output_dir (summary.json {overall, per_task, per_task_type} with per_question.jsonl and summary.txt), output (scores.json {per_task, per_task_type[, overall]}) or flat (older {task: {...}}); NULL otherwise.';
COMMENT ON COLUMN summary_reconciliation.reported_scale IS 'For rates: fraction or percent, as detected for the file; count or mean otherwise.';
COMMENT ON COLUMN summary_reconciliation.source_rejected_lines IS 'Lines of the run''s per-question score files rejected as damaged (severity error).';
