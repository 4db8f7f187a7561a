-- Score tables (issue 4 fills them).

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
    line_no       BIGINT
);
COMMENT ON TABLE question_scores IS 'Per-question, per-run scores: scorers authors_text (the benchmark authors'' text scorer, score_text.py rule for rule; the text leaderboard default), authors_text_fallback (its --extract-text-answer-without-finish option) and set_f1 (the project''s normalized rule) are computed by this project for every result; rows from scored.jsonl, rescored.jsonl and per_question.jsonl keep their own scorer name.';
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

CREATE TABLE summary_metrics (
    file_id   VARCHAR,
    run_id    VARCHAR,
    scoring   VARCHAR,
    scope     VARCHAR,
    task      VARCHAR,
    metric    VARCHAR,
    value     DOUBLE,
    json_path VARCHAR
);
COMMENT ON TABLE summary_metrics IS 'Every number of every summary JSON (summary.json, summary_vocab.json, scores.json, multi-run summary.json), one row each.';
COMMENT ON COLUMN summary_metrics.file_id IS 'Summary file the number came from.';
COMMENT ON COLUMN summary_metrics.run_id IS 'Run the summary describes.';
COMMENT ON COLUMN summary_metrics.scoring IS 'Which summary: summary, summary_vocab, scores or multi_summary.';
COMMENT ON COLUMN summary_metrics.scope IS 'Section of the file: overall, per_task_len1, per_task_len2plus, per_task_unified, per_task, per_task_type, ...';
COMMENT ON COLUMN summary_metrics.task IS 'Task (or task type) the number is about, NULL for overall numbers.';
COMMENT ON COLUMN summary_metrics.metric IS 'Metric name as in the file (f1, accuracy, count, unified_f1, ...).';
COMMENT ON COLUMN summary_metrics.value IS 'The number (as written: fractions or percent, whatever the file used).';
COMMENT ON COLUMN summary_metrics.json_path IS 'JSON path of the number within the file.';
