-- Archive lineage and run history (issue 5). Builds on tables runs, results,
-- question_scores, files, archive_runs, run_regions and run_log_stats.

-- Which current run each archived run is compared with. An archive matches current (not
-- archived) runs of the same benchmark, mode and model whose split is its match_split; when
-- no such run exists, the full-split runs (full1800, subset600, full2703, full*) of that
-- benchmark, mode and model (an early smoke run is superseded by the full run). Its mode is
-- the one its name states, else the one its results show (one-shot records say ok,
-- agentic ones success/incomplete). Of several candidates the one sharing most
-- (qid, run_index) with the archive wins, then the first run_id.
CREATE OR REPLACE VIEW archive_match AS
WITH result_modes AS (
    SELECT
        res.run_id,
        count(*) AS n_results,
        CASE
            WHEN count(*) FILTER (WHERE res.raw_status = 'ok') > 0
                AND count(*) FILTER (WHERE res.raw_status IN ('success', 'incomplete')) = 0
                THEN 'oneshot'
            WHEN count(*) FILTER (WHERE res.raw_status IN ('success', 'incomplete')) > 0
                AND count(*) FILTER (WHERE res.raw_status = 'ok') = 0
                THEN 'agentic'
        END AS inferred_mode
    FROM results AS res
    GROUP BY res.run_id
),
meta_models AS (
    -- Models the run's own files name: run_regions (status, region_map, cmd, run.log) and the
    -- backend model id of its records (through model_aliases).
    SELECT rr.run_id, rr.model
    FROM run_regions AS rr
    WHERE rr.run_id IS NOT NULL AND rr.model IS NOT NULL
    UNION
    SELECT res.run_id, al.model
    FROM results AS res
    JOIN model_aliases AS al ON al.alias = lower(res.backend_model_id)
),
inferred_models AS (
    -- Only an unambiguous answer counts: exactly one model named.
    SELECT
        mmod.run_id,
        min(mmod.model) AS inferred_model
    FROM meta_models AS mmod
    GROUP BY mmod.run_id
    HAVING count(DISTINCT mmod.model) = 1
),
archived AS (
    SELECT
        r.run_id AS archived_run_id,
        coalesce(a.archive_name, r.archive_name) AS archive_name,
        coalesce(a.benchmark, r.benchmark) AS benchmark,
        coalesce(a.mode, r.mode, rm.inferred_mode) AS mode,
        CASE
            WHEN coalesce(a.mode, r.mode) IS NOT NULL THEN 'name'
            WHEN rm.inferred_mode IS NOT NULL THEN 'results'
        END AS mode_source,
        coalesce(a.model, r.model, im.inferred_model) AS model,
        CASE
            WHEN coalesce(a.model, r.model) IS NOT NULL THEN 'name'
            WHEN im.inferred_model IS NOT NULL THEN 'metadata'
        END AS model_source,
        a.model_alias,
        coalesce(a.split, r.split) AS split,
        a.size,
        coalesce(a.match_split, a.split, r.split) AS match_split,
        a.reason,
        a.reason_tag,
        coalesce(a.parsed_by, 'unparsed') AS parsed_by,
        coalesce(rm.n_results, 0) AS n_archived_results
    FROM runs AS r
    LEFT JOIN archive_runs AS a ON a.run_id = r.run_id
    LEFT JOIN result_modes AS rm ON rm.run_id = r.run_id
    LEFT JOIN inferred_models AS im ON im.run_id = r.run_id
    WHERE r.is_archived
),
any_candidates AS (
    SELECT
        ar.archived_run_id,
        c.run_id AS current_run_id,
        CASE WHEN c.split = ar.match_split THEN 'split' ELSE 'full_split' END AS match_kind
    FROM archived AS ar
    JOIN runs AS c
        ON NOT coalesce(c.is_archived, FALSE)
        AND c.benchmark = ar.benchmark
        AND c.model = ar.model
        AND (ar.mode IS NULL OR c.mode = ar.mode)
    LEFT JOIN full_split_runs AS fs ON fs.run_id = c.run_id
    WHERE c.split = ar.match_split OR fs.run_id IS NOT NULL
),
candidates AS (
    -- Same-split runs when there are any; the full-split fallback only when there are none.
    SELECT
        ac.archived_run_id,
        ac.current_run_id,
        ac.match_kind
    FROM any_candidates AS ac
    WHERE ac.match_kind = 'split'
        OR NOT EXISTS (
            SELECT 1
            FROM any_candidates AS same
            WHERE same.archived_run_id = ac.archived_run_id AND same.match_kind = 'split'
        )
),
shared AS (
    SELECT
        cand.archived_run_id,
        cand.current_run_id,
        cand.match_kind,
        count(cur.qid) AS n_shared
    FROM candidates AS cand
    LEFT JOIN results AS old ON old.run_id = cand.archived_run_id
    LEFT JOIN results AS cur
        ON cur.run_id = cand.current_run_id
        AND cur.qid = old.qid
        AND cur.run_index = old.run_index
    GROUP BY cand.archived_run_id, cand.current_run_id, cand.match_kind
),
ranked AS (
    SELECT
        sh.archived_run_id,
        sh.current_run_id,
        sh.match_kind,
        sh.n_shared,
        row_number() OVER (
            PARTITION BY sh.archived_run_id ORDER BY sh.n_shared DESC, sh.current_run_id
        ) AS pick,
        count(*) OVER (PARTITION BY sh.archived_run_id) AS n_candidates
    FROM shared AS sh
)
SELECT
    ar.archived_run_id,
    ar.archive_name,
    ar.benchmark,
    ar.mode,
    ar.mode_source,
    ar.model,
    ar.model_source,
    ar.model_alias,
    ar.split,
    ar.size,
    ar.match_split,
    ar.reason,
    ar.reason_tag,
    ar.parsed_by,
    ar.n_archived_results,
    rk.current_run_id,
    rk.match_kind,
    coalesce(rk.n_candidates, 0) AS n_candidates,
    coalesce(rk.n_shared, 0) AS n_shared
FROM archived AS ar
LEFT JOIN ranked AS rk ON rk.archived_run_id = ar.archived_run_id AND rk.pick = 1;
COMMENT ON VIEW archive_match IS 'Each archived run with the fields its name gives and the current run it is compared with (NULL when none matches): same benchmark, mode and model, and the same split (match_split) or, when no current run has it, a full split (full1800, subset600, full2703, full*); mode from the name or else from the results; of several candidates the one sharing most questions.';
COMMENT ON COLUMN archive_match.archived_run_id IS 'Run id of the archived run, _archive/<name> (see runs).';
COMMENT ON COLUMN archive_match.archive_name IS 'Directory name under _archive/ exactly as found.';
COMMENT ON COLUMN archive_match.benchmark IS 'Benchmark the archive name states; NULL when it cannot be read.';
COMMENT ON COLUMN archive_match.mode IS 'agentic or oneshot: from the name, else inferred from the results (see mode_source); NULL when neither says.';
COMMENT ON COLUMN archive_match.mode_source IS 'Where mode comes from: name, results (one-shot records say ok, agentic ones success/incomplete) or NULL (unknown).';
COMMENT ON COLUMN archive_match.model IS 'Canonical model key the name resolves to (see models), else the one model the run''s metadata files and record backend ids name (see model_source); NULL when neither says.';
COMMENT ON COLUMN archive_match.model_source IS 'Where model comes from: name, metadata (run_regions rows of the run, or its records'' backend_model_id through model_aliases, naming exactly one model) or NULL (unknown).';
COMMENT ON COLUMN archive_match.model_alias IS 'Model part of the archive name exactly as written (opus46).';
COMMENT ON COLUMN archive_match.split IS 'Split the name states (smoke20, full1800, ...); NULL when none.';
COMMENT ON COLUMN archive_match.size IS 'Question count the name states (20 for smoke20); NULL when none.';
COMMENT ON COLUMN archive_match.match_split IS 'Split a current run must have to be compared with this archive.';
COMMENT ON COLUMN archive_match.reason IS 'Why it was archived: retry, salvage, early, rescoring, partial, duplicate, superseded; NULL when unknown.';
COMMENT ON COLUMN archive_match.reason_tag IS 'Leftover words of the archive name as written (pre_ssl_retry, ...).';
COMMENT ON COLUMN archive_match.parsed_by IS 'rules, override (etl/archive_overrides.json) or unparsed (name not readable).';
COMMENT ON COLUMN archive_match.n_archived_results IS 'Result rows (qid, run_index) of the archived run; 0 when it kept only score files.';
COMMENT ON COLUMN archive_match.current_run_id IS 'The current (not archived) run it is compared with; NULL when none matches.';
COMMENT ON COLUMN archive_match.match_kind IS 'How current_run_id was found: split (same split as match_split) or full_split (no current run has that split, so the full-split run); NULL when none matches.';
COMMENT ON COLUMN archive_match.n_candidates IS 'Current runs that matched benchmark, mode, model and split (or, for match_kind full_split, a full split); the best is current_run_id; 0 when none.';
COMMENT ON COLUMN archive_match.n_shared IS 'Result rows (qid, run_index) present in both the archived run and current_run_id.';

-- Each result with the answer scoring uses, the one shape both sides of a diff share.
CREATE OR REPLACE VIEW result_answers AS
SELECT
    res.run_id,
    res.qid,
    res.run_index,
    res.task,
    res.status,
    res.prediction,
    -- The answer scoring uses: the set of normalized items, sorted, as JSON text.
    CAST(to_json(list_sort(list_distinct(
        from_json(coalesce(res.prediction_items, '[]'), '["VARCHAR"]')
    ))) AS VARCHAR) AS answer,
    qs.f1
FROM results AS res
LEFT JOIN question_scores AS qs
    ON qs.run_id = res.run_id AND qs.qid = res.qid AND qs.run_index = res.run_index
    AND qs.scorer = 'set_f1';

COMMENT ON VIEW result_answers IS 'Each result (run_id, qid, run_index) with its normalized answer (sorted distinct prediction items as JSON text) and its set_f1 F1: the shape archive_diff compares.';
COMMENT ON COLUMN result_answers.run_id IS 'Run of the result.';
COMMENT ON COLUMN result_answers.qid IS 'Question id.';
COMMENT ON COLUMN result_answers.run_index IS '1-based run number of the question.';
COMMENT ON COLUMN result_answers.task IS 'Task of the question.';
COMMENT ON COLUMN result_answers.status IS 'Normalized status: success, incomplete or error.';
COMMENT ON COLUMN result_answers.prediction IS 'The finish call''s response as JSON text, as written.';
COMMENT ON COLUMN result_answers.answer IS 'The answer scoring uses: sorted distinct normalized prediction items, as JSON text ("[]" when none).';
COMMENT ON COLUMN result_answers.f1 IS 'set_f1 F1 of this result in [0, 1]; NULL when it has no set_f1 row.';

-- Per question, archived against current: what the retry fixed and what it broke.
CREATE OR REPLACE VIEW archive_diff AS
WITH old_side AS (
    SELECT m.archived_run_id, m.current_run_id, a.qid, a.run_index, a.task, a.status,
           a.prediction, a.answer, a.f1
    FROM archive_match AS m
    JOIN result_answers AS a ON a.run_id = m.archived_run_id
),
new_side AS (
    SELECT m.archived_run_id, m.current_run_id, a.qid, a.run_index, a.task, a.status,
           a.prediction, a.answer, a.f1
    FROM archive_match AS m
    JOIN result_answers AS a ON a.run_id = m.current_run_id
    -- An archive without results (a rescoring kept only score files) lists no questions.
    WHERE m.n_archived_results > 0
),
paired AS (
    SELECT
        coalesce(o.archived_run_id, n.archived_run_id) AS archived_run_id,
        coalesce(o.current_run_id, n.current_run_id) AS current_run_id,
        coalesce(o.qid, n.qid) AS qid,
        coalesce(o.run_index, n.run_index) AS run_index,
        coalesce(n.task, o.task) AS task,
        o.qid IS NOT NULL AS in_archived,
        n.qid IS NOT NULL AS in_current,
        o.status AS archived_status,
        n.status AS current_status,
        o.prediction AS archived_prediction,
        n.prediction AS current_prediction,
        o.answer AS archived_answer,
        n.answer AS current_answer,
        o.f1 AS archived_f1,
        n.f1 AS current_f1
    FROM old_side AS o
    FULL OUTER JOIN new_side AS n
        ON n.archived_run_id = o.archived_run_id
        AND n.qid = o.qid
        AND n.run_index = o.run_index
)
SELECT
    p.archived_run_id,
    m.archive_name,
    p.current_run_id,
    p.qid,
    p.run_index,
    p.task,
    p.archived_status,
    p.current_status,
    p.archived_prediction,
    p.current_prediction,
    p.archived_answer,
    p.current_answer,
    p.archived_f1,
    p.current_f1,
    p.current_f1 - p.archived_f1 AS f1_delta,
    p.in_archived AND p.in_current
        AND p.archived_status IS DISTINCT FROM p.current_status AS status_changed,
    p.in_archived AND p.in_current
        AND p.archived_answer IS DISTINCT FROM p.current_answer AS prediction_changed,
    p.in_archived AND p.in_current
        AND p.archived_prediction IS DISTINCT FROM p.current_prediction
        AS prediction_text_changed,
    p.in_archived AND p.in_current
        AND round(p.archived_f1, 9) IS DISTINCT FROM round(p.current_f1, 9) AS score_changed,
    CASE
        WHEN NOT p.in_current THEN 'only_archived'
        WHEN NOT p.in_archived THEN 'only_current'
        -- fixed / broke: the status AND the score moved the same way. A retry that now
        -- completes but still scores what it scored before is a change, not a fix.
        WHEN p.archived_status IS DISTINCT FROM 'success' AND p.current_status = 'success'
            AND round(p.current_f1, 9) > round(p.archived_f1, 9)
            THEN 'fixed'
        WHEN p.archived_status = 'success' AND p.current_status IS DISTINCT FROM 'success'
            AND round(p.current_f1, 9) < round(p.archived_f1, 9)
            THEN 'broke'
        WHEN round(p.current_f1, 9) > round(p.archived_f1, 9) THEN 'improved'
        WHEN round(p.current_f1, 9) < round(p.archived_f1, 9) THEN 'regressed'
        WHEN p.archived_status IS DISTINCT FROM p.current_status
            OR p.archived_answer IS DISTINCT FROM p.current_answer
            OR round(p.archived_f1, 9) IS DISTINCT FROM round(p.current_f1, 9)
            THEN 'changed'
        ELSE 'same'
    END AS change
FROM paired AS p
JOIN archive_match AS m ON m.archived_run_id = p.archived_run_id
-- Compared with a full run in place of its own split (match_kind full_split), an archive is
-- a sample of it: the full run's other questions are not listed as only_current.
WHERE p.in_archived OR m.match_kind = 'split';
COMMENT ON VIEW archive_diff IS 'One row per (archived run, qid, run_index) present in the archive or in the current run that superseded it (only the archive''s questions when that run is of another split, match_kind full_split): status, prediction and set_f1 on both sides and the change: fixed (now success and set_f1 up), broke (no longer success and set_f1 down), improved / regressed (set_f1 up / down otherwise), changed (other difference of status or normalized answer, e.g. now success with the same score), same, only_archived, only_current. Predictions are compared as normalized answers (the set of strip+lower items set_f1 scores), so a difference of JSON formatting, case, spacing or order is not a change (prediction_text_changed shows it).';
COMMENT ON COLUMN archive_diff.archived_run_id IS 'Run id of the archived run (see archive_match).';
COMMENT ON COLUMN archive_diff.archive_name IS 'Directory name under _archive/.';
COMMENT ON COLUMN archive_diff.current_run_id IS 'The current run the archive is compared with (see archive_match).';
COMMENT ON COLUMN archive_diff.qid IS 'Question id.';
COMMENT ON COLUMN archive_diff.run_index IS '1-based run number of the question.';
COMMENT ON COLUMN archive_diff.task IS 'Task of the question (from the current run when it has it, else from the archive).';
COMMENT ON COLUMN archive_diff.archived_status IS 'Status in the archived run (success, incomplete, error); NULL when absent there.';
COMMENT ON COLUMN archive_diff.current_status IS 'Status in the current run (success, incomplete, error); NULL when absent there.';
COMMENT ON COLUMN archive_diff.archived_prediction IS 'Prediction (finish response as JSON text) in the archived run; NULL when none.';
COMMENT ON COLUMN archive_diff.current_prediction IS 'Prediction (finish response as JSON text) in the current run; NULL when none.';
COMMENT ON COLUMN archive_diff.archived_f1 IS 'set_f1 score in the archived run, a fraction in [0, 1]; NULL when absent.';
COMMENT ON COLUMN archive_diff.current_f1 IS 'set_f1 score in the current run, a fraction in [0, 1]; NULL when absent.';
COMMENT ON COLUMN archive_diff.archived_answer IS 'Normalized answer in the archived run: the distinct strip+lower prediction items set_f1 scores (results.prediction_items), sorted, as a JSON array; [] when no prediction; NULL when absent there.';
COMMENT ON COLUMN archive_diff.current_answer IS 'Normalized answer in the current run, as archived_answer; NULL when absent there.';
COMMENT ON COLUMN archive_diff.f1_delta IS 'current_f1 - archived_f1 (fraction points, in [-1, 1]); NULL when either is absent.';
COMMENT ON COLUMN archive_diff.status_changed IS 'True when present on both sides with different statuses.';
COMMENT ON COLUMN archive_diff.prediction_changed IS 'True when present on both sides with different normalized answers (archived_answer, current_answer).';
COMMENT ON COLUMN archive_diff.prediction_text_changed IS 'True when present on both sides with different prediction JSON text (also when only formatting, case, spacing or item order differ).';
COMMENT ON COLUMN archive_diff.score_changed IS 'True when present on both sides with set_f1 differing (compared at 9 decimals).';
COMMENT ON COLUMN archive_diff.change IS 'fixed, broke, improved, regressed, changed, same (same status, normalized answer and set_f1), only_archived or only_current (see the view comment).';

-- Each archived run, its relation to the current runs, and what changed.
CREATE OR REPLACE VIEW archive_lineage AS
WITH diff_counts AS (
    SELECT
        d.archived_run_id,
        count(*) FILTER (WHERE d.change NOT IN ('same', 'only_archived', 'only_current'))
            AS n_changed,
        count(*) FILTER (WHERE d.change = 'fixed') AS n_fixed,
        count(*) FILTER (WHERE d.change = 'broke') AS n_broke,
        count(*) FILTER (WHERE d.change = 'improved') AS n_improved,
        count(*) FILTER (WHERE d.change = 'regressed') AS n_regressed,
        count(*) FILTER (WHERE d.change = 'same') AS n_same,
        count(*) FILTER (WHERE d.change = 'only_archived') AS n_only_archived,
        count(*) FILTER (WHERE d.change = 'only_current') AS n_only_current
    FROM archive_diff AS d
    GROUP BY d.archived_run_id
),
identical AS (
    SELECT
        mm.archived_run_id,
        mm.current_run_id IS NOT NULL AND mm.n_archived_results > 0
            AND coalesce(c.n_changed, 0) = 0 AND coalesce(c.n_only_archived, 0) = 0
            AND coalesce(c.n_only_current, 0) = 0 AS results_identical
    FROM archive_match AS mm
    LEFT JOIN diff_counts AS c ON c.archived_run_id = mm.archived_run_id
)
SELECT
    m.archived_run_id,
    m.archive_name,
    CASE
        WHEN m.reason = 'rescoring' THEN 'rescoring'
        WHEN m.reason = 'early' THEN 'early'
        WHEN m.current_run_id IS NULL AND m.parsed_by = 'unparsed' THEN 'unknown'
        WHEN m.current_run_id IS NULL THEN 'orphaned'
        WHEN m.reason IN ('salvage', 'duplicate') THEN 'duplicate'
        WHEN ident.results_identical THEN 'duplicate'
        ELSE 'superseded'
    END AS relation,
    m.current_run_id AS superseded_by_run_id,
    m.match_kind,
    ident.results_identical,
    m.benchmark,
    m.mode,
    m.mode_source,
    m.model,
    m.model_source,
    m.model_alias,
    m.split,
    m.size,
    m.reason,
    m.reason_tag,
    m.parsed_by,
    m.n_candidates,
    m.n_archived_results,
    cur.n_results AS n_current_results,
    m.n_shared,
    coalesce(dc.n_changed, 0) AS n_changed,
    coalesce(dc.n_fixed, 0) AS n_fixed,
    coalesce(dc.n_broke, 0) AS n_broke,
    coalesce(dc.n_improved, 0) AS n_improved,
    coalesce(dc.n_regressed, 0) AS n_regressed,
    coalesce(dc.n_same, 0) AS n_same,
    coalesce(dc.n_only_archived, 0) AS n_only_archived,
    coalesce(dc.n_only_current, 0) AS n_only_current
FROM archive_match AS m
LEFT JOIN diff_counts AS dc ON dc.archived_run_id = m.archived_run_id
LEFT JOIN runs AS cur ON cur.run_id = m.current_run_id
LEFT JOIN identical AS ident ON ident.archived_run_id = m.archived_run_id;
COMMENT ON VIEW archive_lineage IS 'Each archived run, its relation to the current runs and the current run that superseded it. relation, first that applies: rescoring (reason rescoring: an earlier scoring of a run), early (reason early: an early run; superseded_by_run_id is the run of its split or else the full run, or NULL), unknown (unreadable name, no current run), orphaned (readable name, no current run of that benchmark, mode and model), duplicate (reason salvage or duplicate: a duplicate or patched re-run, whether or not its results are identical; or any archive whose results are identical to the current run, see results_identical), superseded (a current run replaced it). Counts summarize archive_diff.';
COMMENT ON COLUMN archive_lineage.archived_run_id IS 'Run id of the archived run, _archive/<name> (see runs).';
COMMENT ON COLUMN archive_lineage.archive_name IS 'Directory name under _archive/ exactly as found.';
COMMENT ON COLUMN archive_lineage.relation IS 'superseded, duplicate, early, rescoring, orphaned or unknown (see the view comment).';
COMMENT ON COLUMN archive_lineage.superseded_by_run_id IS 'The current run that replaced it (archive_match.current_run_id); NULL when none matches.';
COMMENT ON COLUMN archive_lineage.match_kind IS 'split (superseded_by_run_id has the archive''s split) or full_split (no current run of that split: the full-split run); NULL when none matches.';
COMMENT ON COLUMN archive_lineage.results_identical IS 'True when the archive has results, a current run matches, and every (qid, run_index) is on both sides with the same status, normalized answer and set_f1 (archive_diff change same only); with match_kind full_split only the archive''s questions are compared.';
COMMENT ON COLUMN archive_lineage.benchmark IS 'Benchmark the archive name states; NULL when it cannot be read.';
COMMENT ON COLUMN archive_lineage.mode IS 'agentic or oneshot, from the name or else inferred from the results; NULL when unknown.';
COMMENT ON COLUMN archive_lineage.mode_source IS 'Where mode comes from: name, results or NULL.';
COMMENT ON COLUMN archive_lineage.model IS 'Canonical model key the name resolves to, else the one the run''s metadata names (see model_source); NULL when none.';
COMMENT ON COLUMN archive_lineage.model_source IS 'Where model comes from: name, metadata or NULL.';
COMMENT ON COLUMN archive_lineage.model_alias IS 'Model part of the archive name exactly as written.';
COMMENT ON COLUMN archive_lineage.split IS 'Split the name states; NULL when none.';
COMMENT ON COLUMN archive_lineage.size IS 'Question count the name states; NULL when none.';
COMMENT ON COLUMN archive_lineage.reason IS 'Why it was archived (retry, salvage, early, rescoring, ...); NULL when unknown.';
COMMENT ON COLUMN archive_lineage.reason_tag IS 'Leftover words of the archive name as written.';
COMMENT ON COLUMN archive_lineage.parsed_by IS 'rules, override or unparsed.';
COMMENT ON COLUMN archive_lineage.n_candidates IS 'Current runs that matched (0 when none).';
COMMENT ON COLUMN archive_lineage.n_archived_results IS 'Result rows (qid, run_index) of the archived run.';
COMMENT ON COLUMN archive_lineage.n_current_results IS 'Result rows of the superseding run (runs.n_results); NULL when there is none.';
COMMENT ON COLUMN archive_lineage.n_shared IS 'Result rows (qid, run_index) present in both runs.';
COMMENT ON COLUMN archive_lineage.n_changed IS 'Result rows present in both runs that differ (fixed, broke, improved, regressed or changed).';
COMMENT ON COLUMN archive_lineage.n_fixed IS 'Result rows not successful in the archive, successful in the current run and with a higher set_f1 (change fixed).';
COMMENT ON COLUMN archive_lineage.n_broke IS 'Result rows successful in the archive, not in the current run, and with a lower set_f1 (change broke).';
COMMENT ON COLUMN archive_lineage.n_improved IS 'Result rows whose set_f1 went up (and neither fixed nor broke).';
COMMENT ON COLUMN archive_lineage.n_regressed IS 'Result rows whose set_f1 went down (and neither fixed nor broke).';
COMMENT ON COLUMN archive_lineage.n_same IS 'Result rows identical on both sides (status, prediction and set_f1).';
COMMENT ON COLUMN archive_lineage.n_only_archived IS 'Result rows present only in the archived run.';
COMMENT ON COLUMN archive_lineage.n_only_current IS 'Result rows present only in the current run.';

-- Where each run's data came from: the logical path, where it really is, and its files.
CREATE OR REPLACE VIEW run_sources AS
WITH kind_counts AS (
    SELECT
        f.run_id,
        f.kind,
        count(*) AS n
    FROM files AS f
    WHERE f.run_id IS NOT NULL
    GROUP BY f.run_id, f.kind
),
kinds AS (
    SELECT
        kc.run_id,
        count(*) AS n_kinds,
        string_agg(kc.kind || ':' || kc.n, ', ' ORDER BY kc.kind) AS kinds
    FROM kind_counts AS kc
    GROUP BY kc.run_id
),
file_dirs AS (
    SELECT DISTINCT
        f.run_id,
        regexp_replace(f.real_path, '/[^/]*$', '') AS real_dir
    FROM files AS f
    WHERE f.run_id IS NOT NULL
),
dirs AS (
    SELECT
        fd.run_id,
        count(*) AS n_real_dirs,
        string_agg(fd.real_dir, '; ' ORDER BY fd.real_dir) AS real_dirs
    FROM file_dirs AS fd
    GROUP BY fd.run_id
),
file_list AS (
    SELECT
        f.run_id,
        count(*) AS n_files,
        count(*) FILTER (WHERE f.loaded) AS n_loaded_files,
        count(*) FILTER (
            WHERE r.real_path IS NOT NULL
            AND left(f.real_path, length(r.real_path) + 1) <> r.real_path || '/'
        ) AS n_files_elsewhere,
        string_agg(f.path, '; ' ORDER BY f.path) AS paths,
        -- CASE rather than FILTER: Trino before 435 has no FILTER on listagg (nulls are
        -- skipped either way)
        string_agg(CASE WHEN f.loaded THEN f.path END, '; ' ORDER BY f.path) AS loaded_paths
    FROM files AS f
    JOIN runs AS r ON r.run_id = f.run_id
    GROUP BY f.run_id
)
SELECT
    r.run_id,
    r.path AS logical_path,
    r.real_path,
    r.real_path IS NOT NULL
        AND right(r.real_path, length(r.path) + 1) <> '/' || r.path AS is_symlinked,
    r.is_archived,
    r.benchmark,
    r.mode,
    r.split,
    r.model,
    r.n_results,
    coalesce(fl.n_files, 0) AS n_files,
    coalesce(fl.n_loaded_files, 0) AS n_loaded_files,
    coalesce(fl.n_files_elsewhere, 0) AS n_files_elsewhere,
    coalesce(k.n_kinds, 0) AS n_kinds,
    k.kinds,
    coalesce(d.n_real_dirs, 0) AS n_real_dirs,
    d.real_dirs,
    fl.loaded_paths,
    fl.paths
FROM runs AS r
LEFT JOIN file_list AS fl ON fl.run_id = r.run_id
LEFT JOIN kinds AS k ON k.run_id = r.run_id
LEFT JOIN dirs AS d ON d.run_id = r.run_id;
COMMENT ON VIEW run_sources IS 'Per run: its logical path (the run_id), the real path after symlinks, whether it is reached through a symlink, and the files that fed it: counts, kinds with counts, the real directories they sit in (a scored directory living in scored_vocab shows here) and their logical paths.';
COMMENT ON COLUMN run_sources.run_id IS 'Run id: logical path of the run directory (see runs).';
COMMENT ON COLUMN run_sources.logical_path IS 'Path of the run directory relative to the root, symlinks not resolved.';
COMMENT ON COLUMN run_sources.real_path IS 'Where the run directory really is after resolving symlinks (may lie outside the root).';
COMMENT ON COLUMN run_sources.is_symlinked IS 'True when the run directory is reached through a symlink (real_path does not end in logical_path).';
COMMENT ON COLUMN run_sources.is_archived IS 'True for runs under _archive/.';
COMMENT ON COLUMN run_sources.benchmark IS 'Benchmark of the run; NULL when unknown.';
COMMENT ON COLUMN run_sources.mode IS 'agentic or oneshot; NULL when unknown.';
COMMENT ON COLUMN run_sources.split IS 'Split as named by the directory.';
COMMENT ON COLUMN run_sources.model IS 'Canonical model key (see models).';
COMMENT ON COLUMN run_sources.n_results IS 'Result rows (qid, run_index) of the run after deduplication.';
COMMENT ON COLUMN run_sources.n_files IS 'Files of the tree attributed to the run (loaded or not).';
COMMENT ON COLUMN run_sources.n_loaded_files IS 'Of those, files whose kind is read into tables.';
COMMENT ON COLUMN run_sources.n_files_elsewhere IS 'Files whose real path lies outside the run''s real directory (e.g. a scored directory living elsewhere).';
COMMENT ON COLUMN run_sources.n_kinds IS 'Distinct file kinds among the run''s files.';
COMMENT ON COLUMN run_sources.kinds IS 'File kinds with their counts, kind:n, comma separated in kind order.';
COMMENT ON COLUMN run_sources.n_real_dirs IS 'Distinct real directories the run''s files sit in.';
COMMENT ON COLUMN run_sources.real_dirs IS 'Those real directories, separated by ''; ''.';
COMMENT ON COLUMN run_sources.loaded_paths IS 'Logical paths of the loaded files, separated by ''; ''; NULL when none.';
COMMENT ON COLUMN run_sources.paths IS 'Logical paths of all the run''s files, separated by ''; ''; NULL when none.';

-- Backend model ids and regions each run used, from the records and from the metadata files.
CREATE OR REPLACE VIEW run_backends AS
WITH from_results AS (
    SELECT
        res.run_id,
        'results' AS source,
        res.backend_model_id,
        res.backend_region AS region,
        count(*) AS n_rows
    FROM results AS res
    WHERE res.backend_model_id IS NOT NULL OR res.backend_region IS NOT NULL
    GROUP BY res.run_id, res.backend_model_id, res.backend_region
),
from_meta AS (
    -- manifest.json rows belong to the raw multi-model run directory; each shard is mapped
    -- to the run whose real directory is <that directory>/<model_tag>.
    SELECT
        coalesce(rr.run_id, g.run_id) AS run_id,
        rr.source,
        rr.backend_model_id,
        rr.region,
        count(*) AS n_rows
    FROM run_regions AS rr
    LEFT JOIN files AS mf ON mf.file_id = rr.file_id
    LEFT JOIN runs AS g
        ON rr.run_id IS NULL
        AND rr.model_tag IS NOT NULL
        AND g.real_path = regexp_replace(mf.real_path, '/[^/]*$', '') || '/' || rr.model_tag
    GROUP BY coalesce(rr.run_id, g.run_id), rr.source, rr.backend_model_id, rr.region
)
SELECT fr.run_id, fr.source, fr.backend_model_id, fr.region, fr.n_rows FROM from_results AS fr
UNION ALL
SELECT fm.run_id, fm.source, fm.backend_model_id, fm.region, fm.n_rows FROM from_meta AS fm;
COMMENT ON VIEW run_backends IS 'Backend model id and region per run and source: results (n_rows = result records carrying them), status / manifest / region_map / cmd / run_log (n_rows = metadata rows naming them). run_id is NULL for manifest shards no run maps to.';
COMMENT ON COLUMN run_backends.run_id IS 'Run the backend was used by; NULL for manifest shards no run maps to.';
COMMENT ON COLUMN run_backends.source IS 'Where it was read: results, status, manifest, region_map, cmd or run_log.';
COMMENT ON COLUMN run_backends.backend_model_id IS 'Backend model id (e.g. moonshotai.kimi-k2.5); NULL when the source names only a region.';
COMMENT ON COLUMN run_backends.region IS 'Backend region (e.g. us-east-1); NULL when the source names only a model id.';
COMMENT ON COLUMN run_backends.n_rows IS 'Rows naming this pair: result records for source results, metadata rows otherwise (a count of rows, not of questions).';

-- run.log counts summed per run (a multi-region run has one log per shard). sum(BIGINT) is
-- HUGEINT, which BI drivers and Parquet handle badly: every sum is cast back to BIGINT.
CREATE OR REPLACE VIEW run_log_summary AS
SELECT
    s.run_id,
    count(*) AS n_logs,
    CAST(sum(s.n_lines) AS BIGINT) AS n_lines,
    CAST(sum(s.n_errors) AS BIGINT) AS n_errors,
    CAST(sum(s.n_tool_errors) AS BIGINT) AS n_tool_errors,
    CAST(sum(s.n_tool_name_fixes) AS BIGINT) AS n_tool_name_fixes,
    CAST(sum(s.n_synthetic_finish) AS BIGINT) AS n_synthetic_finish,
    CAST(sum(s.n_exceptions) AS BIGINT) AS n_exceptions,
    CAST(sum(s.n_tool_calls) AS BIGINT) AS n_tool_calls,
    CAST(sum(s.n_truncated_results) AS BIGINT) AS n_truncated_results,
    CAST(sum(s.n_finish_called) AS BIGINT) AS n_finish_called,
    CAST(sum(s.n_written) AS BIGINT) AS n_written,
    CAST(sum(s.n_questions_started) AS BIGINT) AS n_questions_started
FROM run_log_stats AS s
GROUP BY s.run_id;
COMMENT ON VIEW run_log_summary IS 'Per run, the run.log line counts of run_log_stats summed over its logs (one per region shard).';
COMMENT ON COLUMN run_log_summary.run_id IS 'Run the logs belong to.';
COMMENT ON COLUMN run_log_summary.n_logs IS 'run.log files of the run (one per region shard).';
COMMENT ON COLUMN run_log_summary.n_lines IS 'Lines in the logs.';
COMMENT ON COLUMN run_log_summary.n_errors IS 'Question-level error lines (see run_log_stats.n_errors).';
COMMENT ON COLUMN run_log_summary.n_tool_errors IS 'Failed tool executions (TOOL_ERROR lines).';
COMMENT ON COLUMN run_log_summary.n_tool_name_fixes IS 'Tool names the harness rewrote (TOOL_NAME_FIX lines).';
COMMENT ON COLUMN run_log_summary.n_synthetic_finish IS 'Finish calls synthesized from a plain-text answer.';
COMMENT ON COLUMN run_log_summary.n_exceptions IS 'Python tracebacks.';
COMMENT ON COLUMN run_log_summary.n_tool_calls IS 'Tool calls logged (TOOL_CALL lines).';
COMMENT ON COLUMN run_log_summary.n_truncated_results IS 'Tool results cut to the size cap.';
COMMENT ON COLUMN run_log_summary.n_finish_called IS 'Questions that ended with a real finish call.';
COMMENT ON COLUMN run_log_summary.n_written IS 'Results written, as the log reports them.';
COMMENT ON COLUMN run_log_summary.n_questions_started IS 'Questions started, as the log reports them.';
