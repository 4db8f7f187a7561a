-- Score tables: the per-question scores (computed here for every result, or read from the
-- authors' score files scored.jsonl, rescored.jsonl and per_question.jsonl), every number of
-- the summary files, and best@k over the runs of a question.

CREATE TABLE question_scores (
    run_id        VARCHAR,
    qid           VARCHAR,
    run_index     INTEGER,
    scorer        VARCHAR,
    task          VARCHAR,
    precision     DOUBLE,
    recall        DOUBLE,
    f1            DOUBLE,
    exact_match   DOUBLE,
    correct       DOUBLE,
    route         VARCHAR,
    judge_subtype VARCHAR,
    judge_match   BOOLEAN,
    n_pred        INTEGER,
    n_gold        INTEGER,
    status        VARCHAR,
    file_id       VARCHAR,
    line_no       BIGINT,
    -- for the authors' score files: they let summary_reconciliation recompute every number
    -- the authors' summaries report (accuracy, subset match, raw metrics, len1/len2plus
    -- membership of incomplete rows, per-question run averages)
    rec_no          BIGINT,
    len_gold        INTEGER,
    accuracy        DOUBLE,
    tp              INTEGER,
    precision_raw   DOUBLE,
    recall_raw      DOUBLE,
    f1_raw          DOUBLE,
    accuracy_raw    DOUBLE,
    exact_match_raw DOUBLE,
    vocab_mapped    BOOLEAN,
    note            VARCHAR,
    task_type       VARCHAR,
    n_runs          INTEGER,
    avg_f1          DOUBLE,
    avg_precision   DOUBLE,
    avg_recall      DOUBLE,
    avg_em          DOUBLE,
    tool_calls      INTEGER,
    turns           INTEGER,
    -- the authors' rules recomputed here: the multimodal scorer's prediction and gold strings
    -- (scorer authors_mm_set, etl/scoring/authors_mm.py, and the authors' scored / rescored
    -- rows), and the text scorer's per-run browser calls
    gold_names      VARCHAR,
    prediction_strs VARCHAR,
    browser_calls   INTEGER,
    -- the authors' text scorer (etl/scoring/authors_text.py authors_text,
    -- authors_text_fallback): what each run's prediction was by that scorer's rules and
    -- where it came from
    prediction_source VARCHAR,
    predictions     VARCHAR,
    -- a scored / rescored row as a results row of its question would say it (etl/statuses.py,
    -- etl/tasks.py): what a scored-only run, which has no results, reaches the boards with
    result_status   VARCHAR,
    task_group      VARCHAR,
    -- the keys of a score-file row that no column maps
    extra           VARCHAR,
    -- scores read from Inspect AI logs (etl/extract/inspect_logs.py): the value as Inspect's
    -- value_to_float reads it, and as written
    value           DOUBLE,
    raw_value       VARCHAR
);
COMMENT ON TABLE question_scores IS 'Per-question, per-run scores: scorers authors_text (the benchmark authors'' text scorer, score_text.py rule for rule; the text leaderboard default), authors_text_fallback (its --extract-text-answer-without-finish option) and set_f1 (the project''s normalized rule) are computed by this project for every result; rows from scored.jsonl, rescored.jsonl and per_question.jsonl keep their own scorer name.';
COMMENT ON COLUMN question_scores.value IS 'Rows read from an Inspect AI log: the score''s value as a number, by Inspect''s value_to_float (C correct 1, P partial 0.5, I incorrect 0, N no answer 0, yes / true 1, no / false 0, numbers and numeric text as they are, anything else 0); what the board of an Inspect run averages (scorers.score_rule value). NULL for other scorers.';
COMMENT ON COLUMN question_scores.raw_value IS 'Rows read from an Inspect AI log: the score''s value exactly as written (C, I, 0.75, true, ...), as JSON text. NULL for other scorers.';
COMMENT ON COLUMN question_scores.run_id IS 'Run the score belongs to (scored/<model> files belong to the full-split run of that model).';
COMMENT ON COLUMN question_scores.qid IS 'Question id.';
COMMENT ON COLUMN question_scores.run_index IS '1-based run number.';
COMMENT ON COLUMN question_scores.scorer IS 'authors_text, authors_text_fallback, set_f1 (computed here), scored, rescored or per_question (read from the authors'' files).';
COMMENT ON COLUMN question_scores.task IS 'Task of the question.';
COMMENT ON COLUMN question_scores.precision IS 'Set precision in [0, 1].';
COMMENT ON COLUMN question_scores.recall IS 'Set recall in [0, 1].';
COMMENT ON COLUMN question_scores.f1 IS 'Set F1 in [0, 1]; 0 when the prediction is empty.';
COMMENT ON COLUMN question_scores.exact_match IS '1 when prediction and gold sets are equal, else 0.';
COMMENT ON COLUMN question_scores.correct IS 'Judge or scorer verdict as 1/0 where the file gives one.';
COMMENT ON COLUMN question_scores.route IS 'How the authors scored it: set_f1, llm_judge or incomplete (score-file rows); the scorer name for rows computed here.';
COMMENT ON COLUMN question_scores.judge_subtype IS 'Judge sub-type for llm_judge rows.';
COMMENT ON COLUMN question_scores.judge_match IS 'Judge verdict for llm_judge rows.';
COMMENT ON COLUMN question_scores.n_pred IS 'Size of the prediction set the scorer compared (normalized for set_f1; lower-cased string items for authors_text*).';
COMMENT ON COLUMN question_scores.n_gold IS 'Size of the gold set the scorer compared (normalized for set_f1; lower-cased for authors_text*).';
COMMENT ON COLUMN question_scores.status IS 'Status of the scored result as the scorer saw it.';
COMMENT ON COLUMN question_scores.file_id IS 'File the score (or, for scorers computed here, the result) came from.';
COMMENT ON COLUMN question_scores.line_no IS 'Line of that file.';
COMMENT ON COLUMN question_scores.rec_no IS '1-based record number within the file (differs from line_no after a line holding two objects).';
COMMENT ON COLUMN question_scores.len_gold IS 'Number of gold names the authors'' scorer saw (len_gold, else the length of gold_names); it decides whether an incomplete row counts as len1 or len2plus.';
COMMENT ON COLUMN question_scores.accuracy IS 'The authors'' per-row accuracy: Jaccard |P∩G|/|P∪G| for set rows, the verdict for judge rows, 0 for incomplete rows.';
COMMENT ON COLUMN question_scores.tp IS 'Size of the intersection of prediction and gold sets (set rows).';
COMMENT ON COLUMN question_scores.precision_raw IS 'Precision before vocabulary mapping (the file''s precision_raw), NULL when the file has none.';
COMMENT ON COLUMN question_scores.recall_raw IS 'Recall before vocabulary mapping, NULL when the file has none.';
COMMENT ON COLUMN question_scores.f1_raw IS 'F1 before vocabulary mapping, NULL when the file has none.';
COMMENT ON COLUMN question_scores.accuracy_raw IS 'Jaccard accuracy before vocabulary mapping, NULL when the file has none.';
COMMENT ON COLUMN question_scores.exact_match_raw IS 'subset_match_raw of the file: set equality before vocabulary mapping, NULL when the file has none.';
COMMENT ON COLUMN question_scores.vocab_mapped IS 'True when the predictions were mapped to the task vocabulary before matching.';
COMMENT ON COLUMN question_scores.note IS 'The scorer''s note on the row: prediction extraction note (ok, no_finish_call, bad_json_args, ...) for scored/rescored rows, prediction_source for per_question runs.';
COMMENT ON COLUMN question_scores.task_type IS 'task_type of the question (risk_prediction / decision_making) where the file gives one (per_question.jsonl).';
COMMENT ON COLUMN question_scores.n_runs IS 'per_question rows: how many runs the question had in the scored results (0 for a question without results).';
COMMENT ON COLUMN question_scores.avg_f1 IS 'per_question rows: the file''s question-level avg_f1 (mean over its runs), repeated on each run row of the question.';
COMMENT ON COLUMN question_scores.avg_precision IS 'per_question rows: the file''s question-level avg_precision, repeated on each run row.';
COMMENT ON COLUMN question_scores.avg_recall IS 'per_question rows: the file''s question-level avg_recall, repeated on each run row.';
COMMENT ON COLUMN question_scores.avg_em IS 'per_question rows: the file''s question-level avg_em (mean exact match over runs), repeated on each run row.';
COMMENT ON COLUMN question_scores.tool_calls IS 'per_question rows: tool calls the run made, as the scorer counted them.';
COMMENT ON COLUMN question_scores.turns IS 'per_question rows: assistant turns of the run, as the scorer counted them.';
COMMENT ON COLUMN question_scores.gold_names IS 'JSON list of the gold names the multimodal scorer matched (score_multimodal.py gold_to_strings, blanks dropped): computed for authors_mm_set rows, as written for scored / rescored rows.';
COMMENT ON COLUMN question_scores.prediction_strs IS 'JSON list of the prediction strings the multimodal scorer matched (pred_to_strings of the deciding finish call): computed for authors_mm_set rows, as written for scored / rescored rows; for per_question rows the run''s predictions as written.';
COMMENT ON COLUMN question_scores.browser_calls IS 'per_question rows: browser tool calls of the run as the text scorer counted them (browser_calls).';
COMMENT ON COLUMN question_scores.prediction_source IS 'authors_text / authors_text_fallback rows: where the prediction came from, with the names of the authors'' score_text.py: finish_tool_call, finish_parse_error, finish_tool_call_non_list, no_prediction, and for the fallback fallback_explicit_string_list, fallback_bullet_list, fallback_official_candidate_mentions. NULL for other scorers.';
COMMENT ON COLUMN question_scores.predictions IS 'The prediction this scorer scored, as JSON text: authors_text* rows the extracted list as the authors keep it (items of any type, not stripped, not lower-cased); set_f1 rows the normalized items (results.prediction_items). NULL for rows read from score files.';
COMMENT ON COLUMN question_scores.result_status IS 'scored / rescored rows: the row''s status as results.status would say it (success, incomplete, error: the map of etl/statuses.py, ok -> success), the status a scored-only run reaches the boards with; NULL for other rows.';
COMMENT ON COLUMN question_scores.task_group IS 'scored / rescored rows: the group of the row''s task as results.task_group would say it (the multimodal family of its name, etl/tasks.py); NULL for other rows.';
COMMENT ON COLUMN question_scores.extra IS 'For rows read from scored / rescored / per-question files: JSON object of the row''s keys that no column maps (judge_reason, prediction_strs_mapped, mapping_similarity, ...); NULL when there are none or for rows the project computes.';

CREATE TABLE summary_metrics (
    file_id   VARCHAR,
    run_id    VARCHAR,
    scoring   VARCHAR,
    scope     VARCHAR,
    task      VARCHAR,
    metric    VARCHAR,
    value     DOUBLE,
    json_path VARCHAR,
    -- which shape a text-scorer summary file has and which writer version produced it
    -- (etl/extract/summaries.py)
    file_shape  VARCHAR,
    writer_rule VARCHAR
);
COMMENT ON TABLE summary_metrics IS 'Every number of every summary JSON (summary.json, summary_vocab.json, scores.json, multi-run summary.json), one row each.';
COMMENT ON COLUMN summary_metrics.file_id IS 'Summary file the number came from.';
COMMENT ON COLUMN summary_metrics.run_id IS 'Run the summary describes.';
COMMENT ON COLUMN summary_metrics.scoring IS 'Which summary: summary, summary_vocab, scores (the text scorer), multi_summary, ccs_scores (scores.json of helper/score_diagnoses_ccs_results.py: sample_num, task_num, score avg / max / best@k, info, by_task), tool_json (tool.json of helper/analyze_tool_call_averages.py) or repair_summary (results.repaired.summary.json of helper/repair_diagnoses_ccs_results.py).';
COMMENT ON COLUMN summary_metrics.scope IS 'Section of the file: overall, per_task_len1, per_task_len2plus, per_task_unified, per_task, per_task_type, ...';
COMMENT ON COLUMN summary_metrics.task IS 'Task (or task type) the number is about, NULL for overall numbers.';
COMMENT ON COLUMN summary_metrics.metric IS 'Metric name as in the file (f1, accuracy, count, unified_f1, ...).';
COMMENT ON COLUMN summary_metrics.value IS 'The number (as written: fractions or percent, whatever the file used).';
COMMENT ON COLUMN summary_metrics.json_path IS 'JSON path of the number within the file.';
COMMENT ON COLUMN summary_metrics.file_shape IS 'Shape of a text-scorer summary file: output_dir (summary.json {overall, per_task, per_task_type} beside per_question.jsonl), output (scores.json {per_task, per_task_type[, overall]}), flat (an older scores.json {task: {...}}), ccs_helper (scores.json of score_diagnoses_ccs_results.py); NULL for other summaries.';
COMMENT ON COLUMN summary_metrics.writer_rule IS 'Which rules wrote the file: for text-scorer summaries score_text_current (clinseekagent/scoring/score_text.py and evaluate_results.py from 96d40fe on) or evaluate_results_legacy (openresearcher_ehr/helper/evaluate_results.py as of 09dce89: gold = name and atc_name, no string answers, missing questions count 0); score_diagnoses_ccs for ccs_scores; for tool_json the script and its status filter, analyze_tool_call_averages:success_only (its default: only records with status success) or :all_statuses; NULL for other summaries.';

-- best@k over runs, by the authors' text scorer's rules (score_text.py).
CREATE TABLE question_best_at_k (
    run_id     VARCHAR,
    qid        VARCHAR,
    scorer     VARCHAR,
    k          INTEGER,
    n_runs     INTEGER,
    best_at_k  DOUBLE
);
COMMENT ON TABLE question_best_at_k IS 'best@k over the runs of a question (score_text.py calculate_true_best_at_k: the expected best F1 of k runs drawn without replacement from the question''s n runs, k > n counts as n), for every question of a run whose questions have up to K runs, k = 1..K; computed after load from the authors_text rows of the preferred result copies.';
COMMENT ON COLUMN question_best_at_k.run_id IS 'Run of the question.';
COMMENT ON COLUMN question_best_at_k.qid IS 'Question id.';
COMMENT ON COLUMN question_best_at_k.scorer IS 'Scorer whose per-run F1 values are combined (authors_text).';
COMMENT ON COLUMN question_best_at_k.k IS 'Number of runs drawn, 1..the most runs any question of the run has.';
COMMENT ON COLUMN question_best_at_k.n_runs IS 'Runs (run_index values) the question has.';
COMMENT ON COLUMN question_best_at_k.best_at_k IS 'Expected best F1 of k of its runs, a fraction in [0, 1]; for k = 1 the mean over its runs.';
