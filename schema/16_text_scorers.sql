-- The authors' text scorer (etl/scoring/authors_text.py authors_text, authors_text_fallback) and best@k
-- over runs: what each run's prediction was by that scorer's rules and where it came from.

ALTER TABLE question_scores ADD COLUMN prediction_source VARCHAR;
ALTER TABLE question_scores ADD COLUMN predictions VARCHAR;

COMMENT ON COLUMN question_scores.prediction_source IS 'authors_text / authors_text_fallback rows: where the prediction came from, with the names of the authors'' score_text.py: finish_tool_call, finish_parse_error, finish_tool_call_non_list, no_prediction, and for the fallback fallback_explicit_string_list, fallback_bullet_list, fallback_official_candidate_mentions. NULL for other scorers.';
COMMENT ON COLUMN question_scores.predictions IS 'The prediction this scorer scored, as JSON text: authors_text* rows the extracted list as the authors keep it (items of any type, not stripped, not lower-cased); set_f1 rows the normalized items (results.prediction_items). NULL for rows read from score files.';

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
