-- Columns for the authors' rules recomputed here (issue 11): the multimodal scorer's
-- prediction and gold strings (scorer authors_mm_set, etl/scoring/authors_mm.py, and the
-- authors' scored / rescored rows), score_text.py's per-run tool statistics
-- (etl/scoring/text_runs.py) and which writer version produced a summary file
-- (etl/extract/summaries.py).

ALTER TABLE question_scores ADD COLUMN gold_names VARCHAR;
ALTER TABLE question_scores ADD COLUMN prediction_strs VARCHAR;
ALTER TABLE question_scores ADD COLUMN browser_calls INTEGER;

COMMENT ON COLUMN question_scores.gold_names IS 'JSON list of the gold names the multimodal scorer matched (score_multimodal.py gold_to_strings, blanks dropped): computed for authors_mm_set rows, as written for scored / rescored rows.';
COMMENT ON COLUMN question_scores.prediction_strs IS 'JSON list of the prediction strings the multimodal scorer matched (pred_to_strings of the deciding finish call): computed for authors_mm_set rows, as written for scored / rescored rows; for per_question rows the run''s predictions as written.';
COMMENT ON COLUMN question_scores.browser_calls IS 'per_question rows: browser tool calls of the run as the text scorer counted them (browser_calls).';

ALTER TABLE results ADD COLUMN authors_tool_calls INTEGER;
ALTER TABLE results ADD COLUMN authors_browser_calls INTEGER;
ALTER TABLE results ADD COLUMN authors_turns INTEGER;

COMMENT ON COLUMN results.authors_tool_calls IS 'Tool calls of the result as score_text.py count_tool_calls counts them: every tool_calls entry of every assistant message.';
COMMENT ON COLUMN results.authors_browser_calls IS 'Those whose function name, normalized by score_text.py normalize_tool_name, starts with browser. (browser_search counts too).';
COMMENT ON COLUMN results.authors_turns IS 'Assistant messages of the result (score_text.py count_turns).';

ALTER TABLE summary_metrics ADD COLUMN file_shape VARCHAR;
ALTER TABLE summary_metrics ADD COLUMN writer_rule VARCHAR;

COMMENT ON COLUMN summary_metrics.file_shape IS 'Shape of a text-scorer summary file: output_dir (summary.json {overall, per_task, per_task_type} beside per_question.jsonl), output (scores.json {per_task, per_task_type[, overall]}), flat (an older scores.json {task: {...}}); NULL for other summaries.';
COMMENT ON COLUMN summary_metrics.writer_rule IS 'Version of the authors'' text scorer whose rules wrote the file: score_text_current (clinseekagent/scoring/score_text.py and evaluate_results.py from 96d40fe on) or evaluate_results_legacy (openresearcher_ehr/helper/evaluate_results.py as of 09dce89: gold = name and atc_name, no string answers, missing questions count 0); NULL for other summaries.';

COMMENT ON COLUMN runs.expected_questions IS 'Distinct questions (qids) the split should hold: 1800, 600, 2703 (the combined multimodal test set has one row per qid), 20, ...; NULL when the split does not say. See coverage.no_gold_questions for multimodal questions the authors'' scorer skips.';
