-- text_scorer_rows: the per-result rows that stand for the authors' text scorer
-- (clinseekagent/scoring/score_text.py extract_finish_predictions_with_source + f1_score)
-- wherever a view needs them without an authors' per_question.jsonl (summary_reconciliation
-- of scores.json files): the rows of the text boards' default scorer, which the views read
-- from table scorers (default_for = 'text': authors_text, computed for every result at parse
-- time; its one home is the registry, etl/scoring/registry.py), one row per result with its
-- question_scores.prediction_source. A run without such rows falls back to its set_f1 rows,
-- which carry no prediction_source.

CREATE OR REPLACE VIEW text_scorer_rows AS
WITH text_default AS (
    -- the text boards' default taken whatever a run has rows of (one per benchmark kind)
    SELECT scorer FROM scorers WHERE default_for = 'text' AND NOT default_needs_rows
),
pick AS (
    SELECT q.run_id,
           CASE WHEN bool_or(q.scorer IN (SELECT scorer FROM text_default))
                THEN (SELECT scorer FROM text_default) ELSE 'set_f1' END AS scorer
    FROM question_scores AS q
    WHERE q.scorer IN (SELECT scorer FROM text_default) OR q.scorer = 'set_f1'
    GROUP BY q.run_id
)
SELECT
    q.run_id,
    q.scorer,
    q.qid,
    q.run_index,
    q.task,
    q.precision,
    q.recall,
    q.f1,
    q.exact_match,
    CASE WHEN q.scorer <> 'set_f1' THEN q.prediction_source END AS prediction_source
FROM question_scores AS q
JOIN pick AS p ON p.run_id = q.run_id AND p.scorer = q.scorer;

COMMENT ON VIEW text_scorer_rows IS 'Per-result rows of the authors'' text scorer: the text boards'' default (scorers.default_for = ''text'', authors_text); for a run without such rows its set_f1 rows stand in. Read by summary_reconciliation for scores.json files without per_question.jsonl.';
COMMENT ON COLUMN text_scorer_rows.run_id IS 'Run of the result.';
COMMENT ON COLUMN text_scorer_rows.scorer IS 'authors_text, or set_f1 where the run has no authors_text rows.';
COMMENT ON COLUMN text_scorer_rows.qid IS 'Question id.';
COMMENT ON COLUMN text_scorer_rows.run_index IS '1-based run number.';
COMMENT ON COLUMN text_scorer_rows.task IS 'Task of the question.';
COMMENT ON COLUMN text_scorer_rows.precision IS 'Set precision of the run in [0, 1].';
COMMENT ON COLUMN text_scorer_rows.recall IS 'Set recall of the run in [0, 1].';
COMMENT ON COLUMN text_scorer_rows.f1 IS 'Set F1 of the run in [0, 1].';
COMMENT ON COLUMN text_scorer_rows.exact_match IS '1 when prediction and gold sets are equal.';
COMMENT ON COLUMN text_scorer_rows.prediction_source IS 'The run''s prediction source (finish_tool_call, finish_parse_error, finish_tool_call_non_list, no_prediction) of authors_text rows (question_scores.prediction_source); NULL for set_f1 stand-ins.';
