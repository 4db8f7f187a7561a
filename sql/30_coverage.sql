-- How complete each run is: questions expected by the split against those present.

CREATE OR REPLACE VIEW coverage AS
WITH per_run AS (
    SELECT
        run_id,
        count(DISTINCT qid) AS present,
        count(*) AS n_results,
        count(*) FILTER (WHERE status = 'error') AS errors,
        count(*) FILTER (WHERE status = 'incomplete') AS incomplete,
        count(DISTINCT qid) FILTER (WHERE status = 'error') AS error_questions
    FROM results
    GROUP BY run_id
),
-- What the shards of a multi-region run were given (input.jsonl, input_steal_NN.jsonl).
assigned AS (
    SELECT
        i.run_id,
        count(DISTINCT i.qid) AS n_assigned,
        count(DISTINCT i.qid) FILTER (WHERE NOT EXISTS (
            SELECT 1 FROM results AS x WHERE x.run_id = i.run_id AND x.qid = i.qid
        )) AS assigned_never_answered
    FROM shard_inputs AS i
    GROUP BY i.run_id
),
no_gold AS (
    -- multimodal questions whose gold is empty: score_multimodal.py skips them (no scored
    -- row), so the authors' scored files of a complete full2703 run hold fewer rows than
    -- the 2,703 questions (rescore_mm_vocab.py speaks of a "2,695-row dataset")
    SELECT run_id, count(DISTINCT qid) AS no_gold_questions
    FROM (
        SELECT run_id, qid FROM question_scores
        WHERE scorer IN (SELECT scorer FROM scorers WHERE marks_no_gold) AND route = 'no_gold'
        UNION
        -- a text result with neither label nor ground_truth: nothing to score it against
        SELECT x.run_id, x.qid FROM results AS x
        LEFT JOIN benchmarks AS b ON b.benchmark = x.benchmark
        WHERE x.label_source IS NULL AND coalesce(b.kind, 'text') = 'text'
    )
    GROUP BY run_id
)
SELECT
    r.run_id,
    r.expected_questions,
    coalesce(p.present, 0) AS present,
    CASE WHEN r.expected_questions IS NOT NULL
        THEN greatest(r.expected_questions - coalesce(p.present, 0), 0)
    END AS missing,
    coalesce(p.errors, 0) AS errors,
    coalesce(p.incomplete, 0) AS incomplete,
    coalesce(p.n_results, 0) AS n_results,
    coalesce(p.error_questions, 0) AS error_questions,
    r.benchmark,
    r.mode,
    r.split,
    r.model,
    r.is_archived,
    r.archive_name,
    a.n_assigned,
    a.assigned_never_answered,
    coalesce(g.no_gold_questions, 0) AS no_gold_questions,
    coalesce(p.present, 0) - coalesce(g.no_gold_questions, 0) AS scorable_questions
FROM runs AS r
LEFT JOIN per_run AS p ON p.run_id = r.run_id
LEFT JOIN assigned AS a ON a.run_id = r.run_id
LEFT JOIN no_gold AS g ON g.run_id = r.run_id;

COMMENT ON VIEW coverage IS 'One row per run (archived and smoke runs included): present = distinct questions with at least one result; missing = expected_questions - present (not below 0, NULL when the split gives no expected count); errors / incomplete = results (run_id, qid, run_index rows) with status error / incomplete; n_results = all result rows. Counts, no score and no interval.';
COMMENT ON COLUMN coverage.present IS 'Distinct questions with at least one result row in the run.';
COMMENT ON COLUMN coverage.missing IS 'expected_questions - present, floored at 0; NULL when expected_questions is unknown.';
COMMENT ON COLUMN coverage.errors IS 'Result rows (qid, run_index) with status error.';
COMMENT ON COLUMN coverage.incomplete IS 'Result rows (qid, run_index) with status incomplete.';
COMMENT ON COLUMN coverage.run_id IS 'Run id: logical path of the run directory (see runs); archived runs included.';
COMMENT ON COLUMN coverage.expected_questions IS 'Distinct questions (qids) the split should hold (1800, 600, 2703, 20, ...); NULL when the split does not say. full2703 is the 2,703-row combined multimodal test set, one row per qid (125 x 4 MedMod tasks + 1,706 ehrxqa_table + 497 ehrxqa_image); the authors'' scorer writes rows only for the questions with a non-empty gold (see no_gold_questions), which is why their scored files of a complete run hold fewer rows (the "2,695-row dataset" of rescore_mm_vocab.py).';
COMMENT ON COLUMN coverage.no_gold_questions IS 'Distinct questions without gold: multimodal questions whose gold names are empty (authors_mm_set route no_gold: score_multimodal.py skips them, so they have no scored / rescored row), and text results with neither label nor ground_truth (results.label_source NULL).';
COMMENT ON COLUMN coverage.scorable_questions IS 'present - no_gold_questions: the questions a gold can score (for text runs a label, or the ground_truth of raw QA rows).';
COMMENT ON COLUMN coverage.n_results IS 'All result rows (qid, run_index) of the run; several per question when questions were run more than once.';
COMMENT ON COLUMN coverage.error_questions IS 'Distinct questions with at least one result row of status error (a count of questions, not of rows).';
COMMENT ON COLUMN coverage.benchmark IS 'Benchmark of the run; NULL when unknown (archives whose name cannot be read).';
COMMENT ON COLUMN coverage.mode IS 'agentic or oneshot; NULL when unknown.';
COMMENT ON COLUMN coverage.split IS 'Split as named by the directory: smoke20, full1800, subset600, full2703, ...';
COMMENT ON COLUMN coverage.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN coverage.is_archived IS 'True for runs under _archive/.';
COMMENT ON COLUMN coverage.archive_name IS 'Directory name under _archive/; NULL for current runs.';
COMMENT ON COLUMN coverage.n_assigned IS 'Distinct questions the run''s shards were given in their input files (input.jsonl, input_steal_NN.jsonl; see shard_inputs); NULL for runs without input files.';
COMMENT ON COLUMN coverage.assigned_never_answered IS 'Of those, questions with no result row in the run (a shard that died or was stopped before writing them); NULL for runs without input files.';
