-- Extra columns of question_scores for the authors' score files (issue 4: scored.jsonl,
-- rescored.jsonl, per_question.jsonl). They let summary_reconciliation recompute every
-- number the authors' summaries report (accuracy, subset match, raw metrics, len1/len2plus
-- membership of incomplete rows, per-question run averages).

ALTER TABLE question_scores ADD COLUMN rec_no BIGINT;
ALTER TABLE question_scores ADD COLUMN len_gold INTEGER;
ALTER TABLE question_scores ADD COLUMN accuracy DOUBLE;
ALTER TABLE question_scores ADD COLUMN tp INTEGER;
ALTER TABLE question_scores ADD COLUMN precision_raw DOUBLE;
ALTER TABLE question_scores ADD COLUMN recall_raw DOUBLE;
ALTER TABLE question_scores ADD COLUMN f1_raw DOUBLE;
ALTER TABLE question_scores ADD COLUMN accuracy_raw DOUBLE;
ALTER TABLE question_scores ADD COLUMN exact_match_raw DOUBLE;
ALTER TABLE question_scores ADD COLUMN vocab_mapped BOOLEAN;
ALTER TABLE question_scores ADD COLUMN note VARCHAR;
ALTER TABLE question_scores ADD COLUMN task_type VARCHAR;
ALTER TABLE question_scores ADD COLUMN n_runs INTEGER;
ALTER TABLE question_scores ADD COLUMN avg_f1 DOUBLE;
ALTER TABLE question_scores ADD COLUMN avg_precision DOUBLE;
ALTER TABLE question_scores ADD COLUMN avg_recall DOUBLE;
ALTER TABLE question_scores ADD COLUMN avg_em DOUBLE;
ALTER TABLE question_scores ADD COLUMN tool_calls INTEGER;
ALTER TABLE question_scores ADD COLUMN turns INTEGER;

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
