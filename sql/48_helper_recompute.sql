-- helper_summary_recomputed: the numbers of the authors' helper scripts' summaries,
-- recomputed from the lines of the run's results.jsonl (table line_scores: every line, as
-- those scripts read them) the way each script computes them. summary_reconciliation puts
-- them beside the numbers as written.
-- * ccs_scores (helper/score_diagnoses_ccs_results.py scores.json, rule ccs_helper of
--   etl/scoring/paper.py): lines grouped by qid in file order are a question's runs;
--   sample_num = lines; completed_task_num = questions; score.avg.<m> = mean over questions
--   of the mean over its runs, score.max.<m> = mean of the max, score.best@k.<m> = mean of
--   calculate_true_best_at_k (k = 1..the most runs a question has); info.incomplete_run_count
--   (completed not true), info.non_success_run_count (status not success) and their rates,
--   info.max_runs_per_task, info.avg_runs_per_completed_task. Overall and per task
--   (by_task). The benchmark file it also reads is not in the tree: task_num, missing and
--   extra questions are not recomputed (every question with a line counts as a benchmark
--   question).
-- * tool_json (helper/analyze_tool_call_averages.py tool.json, table line_tool_counts): the
--   lines with status success when the file says success_only (the script's default),
--   every line for all_statuses; per file and per task (the record's task, else the qid
--   without its numeric suffixes): total_queries, total_tool_calls and their average,
--   browser calls, their ratio and percentage; per category and per exact tool: total_calls,
--   avg_per_query, avg_when_used, used_queries.
-- * repair_summary (helper/repair_diagnoses_ccs_results.py results.repaired.summary.json):
--   total_records and before.* from the run's results.jsonl lines, after.* and the repaired
--   count from results.repaired.jsonl (table repaired_result_lines).

CREATE OR REPLACE VIEW helper_summary_recomputed AS
WITH lines AS (
    SELECT run_id, file_id, rec_no, coalesce(qid, '') AS qid,
           CASE WHEN coalesce(task, '') <> '' THEN task ELSE 'unknown' END AS task,
           raw_status, completed, stop_reason, f1, precision, recall, exact_match
    FROM line_scores
    WHERE kind = 'results_top' AND scorer = 'ccs_helper'
),
ccs_runs AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, qid ORDER BY rec_no) AS run_no,
           count(*) OVER (PARTITION BY run_id, qid) AS n_runs,
           first_value(task) OVER (PARTITION BY run_id, qid ORDER BY rec_no) AS q_task
    FROM lines
),
ccs_long AS (
    SELECT run_id, qid, q_task, n_runs, 'f1_score' AS metric, f1 AS value FROM ccs_runs
    UNION ALL
    SELECT run_id, qid, q_task, n_runs, 'precision', precision FROM ccs_runs
    UNION ALL
    SELECT run_id, qid, q_task, n_runs, 'recall', recall FROM ccs_runs
    UNION ALL
    SELECT run_id, qid, q_task, n_runs, 'exact_match', exact_match FROM ccs_runs
),
ccs_ranked AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, qid, metric ORDER BY value) AS i
    FROM ccs_long
),
ccs_scopes AS (
    -- every question twice: the whole file and its task
    SELECT DISTINCT run_id, 'overall' AS scope, CAST(NULL AS VARCHAR) AS task, qid, n_runs
    FROM ccs_runs
    UNION
    SELECT DISTINCT run_id, 'by_task', q_task, qid, n_runs FROM ccs_runs
),
ccs_k AS (
    -- k = 1 .. the most runs a question of the scope has (run numbers serve as the series)
    SELECT s.run_id, s.scope, s.task, ks.k
    FROM (SELECT run_id, scope, task, max(n_runs) AS max_runs FROM ccs_scopes
          GROUP BY run_id, scope, task) AS s
    JOIN (SELECT DISTINCT run_id, run_no AS k FROM ccs_runs) AS ks
        ON ks.run_id = s.run_id AND ks.k <= s.max_runs
),
ccs_cdf AS (
    -- calculate_true_best_at_k = sum over i of v_(i) * C(i-1, k-1) / C(n, k)
    --   = sum over i of v_(i) * (F(i) - F(i-1)), F(i) = C(i, k) / C(n, k)
    --   = prod_{j=1..k} (i - j + 1) / (n - j + 1), 0 when i < k (k > n counts as n)
    SELECT r.run_id, sc.scope, sc.task, r.qid, r.metric, kk.k, r.i, r.value,
           CASE WHEN r.i < least(kk.k, r.n_runs) THEN 0.0
                ELSE exp(sum(CASE WHEN r.i >= least(kk.k, r.n_runs)
                                  THEN ln((r.i - j.run_no + 1.0) / (r.n_runs - j.run_no + 1.0))
                             END)) END AS cdf
    FROM ccs_scopes AS sc
    JOIN ccs_ranked AS r ON r.run_id = sc.run_id AND r.qid = sc.qid
    JOIN ccs_k AS kk ON kk.run_id = sc.run_id AND kk.scope = sc.scope
                    AND kk.task IS NOT DISTINCT FROM sc.task
    JOIN ccs_runs AS j ON j.run_id = r.run_id AND j.qid = r.qid
                      AND j.run_no <= least(kk.k, r.n_runs)
    GROUP BY r.run_id, sc.scope, sc.task, r.qid, r.metric, kk.k, r.i, r.value, r.n_runs
),
ccs_question AS (
    SELECT run_id, scope, task, qid, metric, k, avg(value) AS q_avg, max(value) AS q_max,
           sum(value * (cdf - prev_cdf)) AS q_best
    FROM (SELECT *, coalesce(lag(cdf) OVER (PARTITION BY run_id, scope, task, qid, metric, k
                                            ORDER BY i), 0.0) AS prev_cdf
          FROM ccs_cdf) AS c
    GROUP BY run_id, scope, task, qid, metric, k
),
ccs_scores AS (
    SELECT run_id, scope, task, 'score.avg.' || metric AS metric, 'rate' AS kind,
           avg(q_avg) AS value, count(*) AS n_rows
    FROM ccs_question WHERE k = 1 GROUP BY run_id, scope, task, metric
    UNION ALL
    SELECT run_id, scope, task, 'score.max.' || metric, 'rate', avg(q_max), count(*)
    FROM ccs_question WHERE k = 1 GROUP BY run_id, scope, task, metric
    UNION ALL
    -- summary_metrics spells a key that is not a plain name JSONPath-style: ["best@2"]
    SELECT run_id, scope, task, 'score["best@' || CAST(k AS VARCHAR) || '"].' || metric, 'rate',
           avg(q_best), count(*)
    FROM ccs_question GROUP BY run_id, scope, task, metric, k
),
ccs_counts AS (
    SELECT sc.run_id, sc.scope, sc.task,
           count(*) AS lines,
           count(DISTINCT l.qid) AS questions,
           count(*) FILTER (WHERE l.completed IS DISTINCT FROM true) AS incomplete,
           count(*) FILTER (WHERE l.raw_status IS DISTINCT FROM 'success') AS non_success,
           max(l.n_runs) AS max_runs
    FROM ccs_scopes AS sc
    JOIN ccs_runs AS l ON l.run_id = sc.run_id AND l.qid = sc.qid
    -- by_task counts the lines of the task (result_runs_by_task: each line by its own task)
    WHERE sc.scope = 'overall' OR l.task = sc.task
    GROUP BY sc.run_id, sc.scope, sc.task
),
ccs_count_long AS (
    SELECT c.run_id, c.scope, c.task, v.metric, v.kind,
           CASE v.metric
               WHEN 'sample_num' THEN CAST(c.lines AS DOUBLE)
               WHEN 'completed_task_num' THEN CAST(c.questions AS DOUBLE)
               WHEN 'info.completed_task_count' THEN CAST(c.questions AS DOUBLE)
               WHEN 'info.incomplete_run_count' THEN CAST(c.incomplete AS DOUBLE)
               WHEN 'info.incomplete_run_rate' THEN CAST(c.incomplete AS DOUBLE) / c.lines
               WHEN 'info.non_success_run_count' THEN CAST(c.non_success AS DOUBLE)
               WHEN 'info.non_success_run_rate' THEN CAST(c.non_success AS DOUBLE) / c.lines
               WHEN 'info.max_runs_per_task' THEN CAST(c.max_runs AS DOUBLE)
               ELSE CAST(c.lines AS DOUBLE) / c.questions
           END AS value,
           c.lines AS n_rows
    FROM ccs_counts AS c
    CROSS JOIN (VALUES ('sample_num', 'count'), ('completed_task_num', 'count'),
                       ('info.completed_task_count', 'count'),
                       ('info.incomplete_run_count', 'count'),
                       ('info.incomplete_run_rate', 'rate'),
                       ('info.non_success_run_count', 'count'),
                       ('info.non_success_run_rate', 'rate'),
                       ('info.max_runs_per_task', 'count'),
                       ('info.avg_runs_per_completed_task', 'mean')) AS v(metric, kind)
),
tool_files AS (
    SELECT DISTINCT run_id, writer_rule,
           CASE WHEN writer_rule LIKE '%all_statuses' THEN false ELSE true END AS success_only
    FROM summary_metrics WHERE scoring = 'tool_json'
),
tool_lines AS (
    SELECT f.run_id, f.writer_rule, s.file_id, s.rec_no,
           CASE
               WHEN coalesce(s.task, '') <> '' THEN s.task
               WHEN regexp_matches(coalesce(s.qid, ''), '^.*_[0-9]+_[0-9]+$')
                   THEN coalesce(nullif(regexp_extract(s.qid, '^(.*)_[0-9]+_[0-9]+$', 1), ''),
                                 'unknown')
               WHEN regexp_matches(coalesce(s.qid, ''), '^.*_[0-9]+$')
                   THEN coalesce(nullif(regexp_extract(s.qid, '^(.*)_[0-9]+$', 1), ''),
                                 'unknown')
               ELSE 'unknown'
           END AS task
    FROM line_scores AS s
    JOIN tool_files AS f ON f.run_id = s.run_id
    WHERE s.kind = 'results_top' AND s.scorer = 'ccs_helper'
        AND (NOT f.success_only OR s.raw_status = 'success')
),
tool_scoped AS (
    SELECT run_id, writer_rule, file_id, rec_no, NULL AS task FROM tool_lines
    UNION ALL
    SELECT run_id, writer_rule, file_id, rec_no, task FROM tool_lines
),
tool_queries AS (
    SELECT run_id, writer_rule, task, count(*) AS queries
    FROM tool_scoped GROUP BY run_id, writer_rule, task
),
tool_calls_scoped AS (
    SELECT t.run_id, t.writer_rule, t.task, t.rec_no, c.tool, c.n_calls,
           CASE WHEN c.tool LIKE 'ehr.%' THEN 'ehr'
                WHEN c.tool LIKE 'browser.%' THEN 'browser'
                WHEN c.tool LIKE '%.%' THEN split_part(c.tool, '.', 1)
                ELSE 'other' END AS category
    FROM tool_scoped AS t
    JOIN line_tool_counts AS c ON c.file_id = t.file_id AND c.rec_no = t.rec_no
),
tool_summary AS (
    SELECT q.run_id, q.writer_rule, q.task, q.queries,
           coalesce(sum(c.n_calls), 0) AS calls,
           coalesce(sum(c.n_calls) FILTER (WHERE c.category = 'browser'), 0) AS browser
    FROM tool_queries AS q
    LEFT JOIN tool_calls_scoped AS c
        ON c.run_id = q.run_id AND c.writer_rule = q.writer_rule
       AND c.task IS NOT DISTINCT FROM q.task
    GROUP BY q.run_id, q.writer_rule, q.task, q.queries
),
tool_summary_long AS (
    SELECT t.run_id, t.writer_rule, 'summary' AS scope, t.task, v.metric, v.kind,
           CASE v.metric
               WHEN 'total_queries' THEN CAST(t.queries AS DOUBLE)
               WHEN 'total_tool_calls' THEN CAST(t.calls AS DOUBLE)
               WHEN 'avg_total_tool_calls_per_query'
                   THEN CASE WHEN t.queries > 0 THEN CAST(t.calls AS DOUBLE) / t.queries
                             ELSE 0.0 END
               WHEN 'browser_tool_calls' THEN CAST(t.browser AS DOUBLE)
               WHEN 'browser_tool_call_ratio'
                   THEN CASE WHEN t.calls > 0 THEN CAST(t.browser AS DOUBLE) / t.calls
                             ELSE 0.0 END
               ELSE CASE WHEN t.calls > 0 THEN CAST(t.browser AS DOUBLE) / t.calls
                         ELSE 0.0 END * 100.0
           END AS value,
           t.queries AS n_rows
    FROM tool_summary AS t
    CROSS JOIN (VALUES ('total_queries', 'count'), ('total_tool_calls', 'count'),
                       ('avg_total_tool_calls_per_query', 'mean'),
                       ('browser_tool_calls', 'count'), ('browser_tool_call_ratio', 'rate'),
                       ('browser_tool_call_percentage', 'percent')) AS v(metric, kind)
),
tool_names AS (
    SELECT run_id, writer_rule, task, 'by_category' AS scope, category AS name, rec_no, n_calls
    FROM tool_calls_scoped
    UNION ALL
    SELECT run_id, writer_rule, task, 'by_exact_tool', tool, rec_no, n_calls
    FROM tool_calls_scoped
),
tool_named AS (
    SELECT n.run_id, n.writer_rule, n.scope, n.task, n.name, sum(n.n_calls) AS total,
           count(DISTINCT n.rec_no) AS used, min(q.queries) AS queries
    FROM tool_names AS n
    JOIN tool_queries AS q
        ON q.run_id = n.run_id AND q.writer_rule = n.writer_rule
       AND q.task IS NOT DISTINCT FROM n.task
    GROUP BY n.run_id, n.writer_rule, n.scope, n.task, n.name
),
tool_named_long AS (
    SELECT t.run_id, t.writer_rule, t.scope, t.task, t.name || '.' || v.metric AS metric,
           v.kind,
           CASE v.metric
               WHEN 'total_calls' THEN CAST(t.total AS DOUBLE)
               WHEN 'avg_per_query'
                   THEN CASE WHEN t.queries > 0 THEN CAST(t.total AS DOUBLE) / t.queries
                             ELSE 0.0 END
               WHEN 'avg_when_used'
                   THEN CASE WHEN t.used > 0 THEN CAST(t.total AS DOUBLE) / t.used
                             ELSE 0.0 END
               ELSE CAST(t.used AS DOUBLE)
           END AS value,
           t.queries AS n_rows
    FROM tool_named AS t
    CROSS JOIN (VALUES ('total_calls', 'count'), ('avg_per_query', 'mean'),
                       ('avg_when_used', 'mean'), ('used_queries', 'count')) AS v(metric, kind)
),
repair_before AS (
    SELECT run_id, 'status_counts.' || coalesce(raw_status, 'unknown') AS metric,
           count(*) AS n FROM lines GROUP BY run_id, raw_status
    UNION ALL
    SELECT run_id, 'completed_counts.' || CASE WHEN completed THEN 'true' ELSE 'false' END,
           count(*) FROM lines GROUP BY run_id, CASE WHEN completed THEN 'true' ELSE 'false' END
    UNION ALL
    SELECT run_id, 'stop_reason_counts.' || coalesce(stop_reason, 'unknown'), count(*)
    FROM lines GROUP BY run_id, stop_reason
),
repair_after AS (
    SELECT run_id, 'status_counts.' || coalesce(raw_status, 'unknown') AS metric,
           count(*) AS n FROM repaired_result_lines GROUP BY run_id, raw_status
    UNION ALL
    SELECT run_id, 'completed_counts.' || CASE WHEN completed THEN 'true' ELSE 'false' END,
           count(*) FROM repaired_result_lines
    GROUP BY run_id, CASE WHEN completed THEN 'true' ELSE 'false' END
    UNION ALL
    SELECT run_id, 'stop_reason_counts.' || coalesce(stop_reason, 'unknown'), count(*)
    FROM repaired_result_lines GROUP BY run_id, stop_reason
    UNION ALL
    SELECT run_id, 'repaired_count', count(*) FILTER (WHERE repaired)
    FROM repaired_result_lines GROUP BY run_id
),
repair_long AS (
    SELECT run_id, 'overall' AS scope, 'total_records' AS metric, count(*) AS n
    FROM lines
    WHERE run_id IN (SELECT run_id FROM repaired_result_lines)
    GROUP BY run_id
    UNION ALL
    SELECT run_id, 'before', metric, n FROM repair_before
    WHERE run_id IN (SELECT run_id FROM repaired_result_lines)
    UNION ALL
    SELECT run_id, 'after', metric, n FROM repair_after
    UNION ALL
    SELECT run_id, 'repair_reason_counts', 'repaired', count(*) FILTER (WHERE repaired)
    FROM repaired_result_lines GROUP BY run_id
    UNION ALL
    -- repair_record's first test: not (status incomplete and completed not true)
    SELECT run_id, 'repair_reason_counts', 'not_incomplete',
           count(*) FILTER (WHERE raw_status IS DISTINCT FROM 'incomplete' OR completed)
    FROM lines
    WHERE run_id IN (SELECT run_id FROM repaired_result_lines)
    GROUP BY run_id
)
SELECT run_id, 'ccs_scores' AS scoring, 'score_diagnoses_ccs' AS writer_rule,
       'ccs_helper' AS source_scorer, scope, task, metric, kind, value, n_rows
FROM ccs_scores
UNION ALL
SELECT run_id, 'ccs_scores', 'score_diagnoses_ccs', 'ccs_helper', scope, task, metric, kind,
       value, n_rows
FROM ccs_count_long
UNION ALL
SELECT run_id, 'tool_json', writer_rule, 'line_tool_counts', scope, task, metric, kind, value,
       n_rows
FROM tool_summary_long
UNION ALL
SELECT run_id, 'tool_json', writer_rule, 'line_tool_counts', scope, task, metric, kind, value,
       n_rows
FROM tool_named_long
UNION ALL
SELECT run_id, 'repair_summary', NULL, 'repaired_result_lines', scope, NULL, metric, 'count',
       CAST(n AS DOUBLE), NULL
FROM repair_long;

COMMENT ON VIEW helper_summary_recomputed IS 'The numbers of the authors'' helper-script summaries recomputed from the lines of the run''s results.jsonl (every line, as those scripts read them): scores.json of score_diagnoses_ccs_results.py (scoring ccs_scores: sample_num, completed_task_num, score avg / max / best@k of f1_score, precision, recall, exact_match by its rule, info counts; overall and by_task), tool.json of analyze_tool_call_averages.py (scoring tool_json, honouring its status filter: success_only by default), results.repaired.summary.json of repair_diagnoses_ccs_results.py (scoring repair_summary). Read by summary_reconciliation.';
COMMENT ON COLUMN helper_summary_recomputed.run_id IS 'Run of the summary.';
COMMENT ON COLUMN helper_summary_recomputed.scoring IS 'ccs_scores, tool_json or repair_summary (summary_metrics.scoring).';
COMMENT ON COLUMN helper_summary_recomputed.writer_rule IS 'score_diagnoses_ccs; analyze_tool_call_averages:success_only or :all_statuses (the filter the tool.json was made with); NULL for repair summaries.';
COMMENT ON COLUMN helper_summary_recomputed.source_scorer IS 'What the number was recomputed from: ccs_helper rows of line_scores, line_tool_counts, repaired_result_lines.';
COMMENT ON COLUMN helper_summary_recomputed.scope IS 'Section of the file (summary_metrics.scope).';
COMMENT ON COLUMN helper_summary_recomputed.task IS 'Task of the number, NULL for file-level numbers.';
COMMENT ON COLUMN helper_summary_recomputed.metric IS 'Metric as named in summary_metrics.';
COMMENT ON COLUMN helper_summary_recomputed.kind IS 'count, rate, mean or percent (how summary_reconciliation compares it).';
COMMENT ON COLUMN helper_summary_recomputed.value IS 'The recomputed number (rates as fractions).';
COMMENT ON COLUMN helper_summary_recomputed.n_rows IS 'Lines or questions behind the number.';
