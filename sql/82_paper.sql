-- The paper's tables, as the authors' analysis chain makes them (UCSC-VLAA/ClinSeekAgent
-- openresearcher_ehr/analysis/; the code is the specification):
--   reorganize_results.py          rows: one per line of a run's results.jsonl (EHR-Bench,
--                                  rule paper_text) or of its scored.jsonl, else rescored.jsonl
--                                  (mm_bench); each row put in a 4-layer taxonomy L1 modality /
--                                  L2 group / L3 semantic task / L4 fine task; a node's score is
--                                  the mean over its rows (every line counts: aggregate.json).
--   compute_ci_from_per_sample_scores.py
--                                  95% intervals: Student t over the per-sample scores, not
--                                  clipped; a sample is a question (the LAST row of a qid in the
--                                  node: its {qid: f1} dicts) for EHR-Bench and mm_bench, every
--                                  results line for AgentEHR (rule paper_agentehr, its table 3:
--                                  per task, and pooled over five tasks, prescriptions left
--                                  out); paired agentic - oneshot intervals over the qids both
--                                  modes have.
--   findings_20260501/scripts/build_report.py
--                                  the table cells: aggregate.json node scores; the
--                                  multimodal overall is count-weighted over the six
--                                  multimodal L4 tasks (ehrxqa_table's text-only tasks left
--                                  out); deltas are differences of the two table cells.
-- The mm_bench fine tasks come from the authors' task classifier output (table
-- mm_task_classification, the file with the greatest name); a tree without one falls back to
-- the benchmark task (task_source = 'coarse_task': medmod tasks map one to one as the
-- classifier maps them, ehrxqa_image stays one unsplit task).
-- Levels of paper_table: overall, group (L2), semantic (L3), task (L4). in_paper_table marks
-- the cells the authors' tables and figure print (EHR-Bench: overall, groups, semantic tasks;
-- mm_bench: the six multimodal L4 tasks and the multimodal overall; AgentEHR: five tasks and
-- their pool); the other cells follow the same rules.
-- The scorer of each benchmark's table is read from table scorers (paper_table_for; the
-- registry etl/scoring/registry.py): paper_text, paper_agentehr, and paper_mm for the
-- authors' own scored / rescored numbers; their rules are etl/scoring/paper.py and
-- etl/scoring/authors_files.py.

-- The taxonomy (table paper_taxonomy), the classifier's renames and the stand-ins for a tree
-- without a classifier file (table paper_task_names) are written by every build from
-- etl/tasks.py, the one home of the task lists (normalize reads the same groups).

CREATE OR REPLACE VIEW paper_mm_fine_task AS
WITH latest AS (
    -- load_mm_classifier(latest_only=True): the last classification_*.jsonl by name
    SELECT file_id FROM mm_task_classification
    ORDER BY regexp_extract(path, '([^/]*)$', 1) DESC, path DESC
    LIMIT 1
),
labels AS (
    SELECT
        c.qid,
        arg_max(c.coarse_task, c.line_no) AS coarse_task,
        arg_max(c.raw_task, c.line_no) AS raw_task
    FROM mm_task_classification AS c
    JOIN latest AS l ON l.file_id = c.file_id
    GROUP BY c.qid
)
SELECT
    x.qid,
    x.coarse_task,
    x.raw_task,
    -- MM_FINE_RENAME; MM_IGNORE_FINE (prescriptions, other) has no fine task
    CASE WHEN n.written IS NOT NULL THEN n.fine_task ELSE x.raw_task END AS fine_task
FROM labels AS x
LEFT JOIN paper_task_names AS n ON n.source = 'classifier' AND n.written = x.raw_task;

COMMENT ON VIEW paper_mm_fine_task IS 'The fine task of each mm_bench question by the authors'' task classifier: the rows of the classifier file with the greatest name (reorganize_results.py load_mm_classifier, latest_only), the last line of a qid winning, raw task renamed by MM_FINE_RENAME; NULL for the ignored labels prescriptions and other.';
COMMENT ON COLUMN paper_mm_fine_task.qid IS 'Question id.';
COMMENT ON COLUMN paper_mm_fine_task.coarse_task IS 'Benchmark task of the question as the classifier file gives it.';
COMMENT ON COLUMN paper_mm_fine_task.raw_task IS 'The classifier''s task label.';
COMMENT ON COLUMN paper_mm_fine_task.fine_task IS 'L4 fine task after the rename; NULL when the authors drop the question (prescriptions, other).';

CREATE OR REPLACE VIEW paper_rows AS
WITH board AS (
    SELECT run_id, benchmark, mode, model FROM leaderboard_runs
    WHERE benchmark IN ('ehr_bench', 'agent_ehr_bench', 'mm_bench')
),
text_rows AS (
    -- load_ehr_bench_rows / _agent_ehr_bedrock_rows: every line of the run's results.jsonl
    SELECT b.run_id, b.benchmark, b.mode, b.model, s.scorer, s.file_id, s.rec_no, s.line_no,
           coalesce(s.qid, '') AS qid, coalesce(s.task, '') AS fine_task, s.f1, s.precision,
           s.recall, 'record' AS task_source
    FROM line_scores AS s
    JOIN board AS b ON b.run_id = s.run_id
    -- the rule of the benchmark's table (scorers.paper_table_for: paper_text, paper_agentehr)
    JOIN scorers AS sc
        ON sc.scorer = s.scorer AND sc.paper_table_for = b.benchmark
        AND sc.line_rows = 'results_line'
    WHERE s.kind = 'results_top'
        AND (b.benchmark <> 'agent_ehr_bench' OR coalesce(s.task, '') <> '')
),
mm_source AS (
    -- load_mm_bench_rows: scored.jsonl, else rescored.jsonl
    SELECT run_id, CASE WHEN bool_or(kind = 'scored') THEN 'scored' ELSE 'rescored' END AS kind
    FROM line_scores
    WHERE scorer IN (SELECT scorer FROM scorers WHERE paper_table_for = 'mm_bench')
    GROUP BY run_id
),
classified AS (
    SELECT count(*) > 0 AS present FROM paper_mm_fine_task
),
mm_rows AS (
    SELECT b.run_id, b.benchmark, b.mode, b.model, s.scorer, s.file_id, s.rec_no, s.line_no,
           s.qid,
           CASE WHEN c.present THEN f.fine_task
                ELSE coalesce(n.fine_task, s.task)
           END AS fine_task,
           s.f1, s.precision, s.recall,
           CASE WHEN c.present THEN 'classifier' ELSE 'coarse_task' END AS task_source
    FROM line_scores AS s
    JOIN board AS b ON b.run_id = s.run_id AND b.benchmark = 'mm_bench'
    JOIN mm_source AS m ON m.run_id = s.run_id AND m.kind = s.kind
    CROSS JOIN classified AS c
    LEFT JOIN paper_mm_fine_task AS f ON f.qid = s.qid
    -- without a classifier file the benchmark task stands in (paper_task_names coarse_task)
    LEFT JOIN paper_task_names AS n
        ON n.source = 'coarse_task' AND n.benchmark = b.benchmark AND n.written = s.task
    WHERE s.scorer IN (SELECT scorer FROM scorers WHERE paper_table_for = 'mm_bench')
        -- a question the classifier does not know, or labels prescriptions / other: dropped
        AND (NOT c.present OR f.fine_task IS NOT NULL)
)
SELECT r.run_id, r.benchmark, r.mode, r.model, r.scorer, r.file_id, r.rec_no, r.line_no,
       r.qid, r.fine_task, t.l1, t.l2, t.l3, coalesce(t.in_mm_overall, false) AS in_mm_overall,
       r.f1, r.precision, r.recall, r.task_source,
       coalesce(t.in_overall, false) AS in_overall, coalesce(t.printed, false) AS printed
FROM (SELECT * FROM text_rows UNION ALL SELECT * FROM mm_rows) AS r
LEFT JOIN paper_taxonomy AS t
    ON t.benchmark = r.benchmark AND t.fine_task = r.fine_task
-- reorganize_results.py places a row only under a task its taxonomy knows (AgentEHR has no
-- taxonomy: its table lists five tasks, every task is a row)
WHERE r.benchmark = 'agent_ehr_bench' OR t.l1 IS NOT NULL;

COMMENT ON VIEW paper_rows IS 'The per-sample rows of the paper''s tables, one per line the authors'' chain reads, for the leaderboard runs: EHR-Bench every line of the run''s results.jsonl scored by paper_text (reorganize_results.py), AgentEHR every line with a task scored by paper_agentehr (compute_ci_from_per_sample_scores.py table 3), mm_bench every line of the scored.jsonl of the run''s scored directory (else rescored.jsonl) with the authors'' own numbers (paper_mm), cut by the classifier''s fine task. Rows of a task outside paper_taxonomy (EHR-Bench, mm_bench) and mm questions the classifier does not place are left out, as the authors'' chain leaves them out.';
COMMENT ON COLUMN paper_rows.run_id IS 'Leaderboard run of the row.';
COMMENT ON COLUMN paper_rows.benchmark IS 'ehr_bench, agent_ehr_bench or mm_bench.';
COMMENT ON COLUMN paper_rows.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN paper_rows.model IS 'Canonical model key.';
COMMENT ON COLUMN paper_rows.scorer IS 'Rule of the row (line_scores.scorer): paper_text, paper_agentehr or paper_mm.';
COMMENT ON COLUMN paper_rows.file_id IS 'File of the line.';
COMMENT ON COLUMN paper_rows.rec_no IS 'Record number of the line in its file (the later line has the larger number).';
COMMENT ON COLUMN paper_rows.line_no IS 'Line of the file.';
COMMENT ON COLUMN paper_rows.qid IS 'qid of the line ('''' when the record has none).';
COMMENT ON COLUMN paper_rows.fine_task IS 'L4 task: the record''s task (text benchmarks), the classifier''s fine task (mm_bench), or the benchmark task when no classifier file is loaded.';
COMMENT ON COLUMN paper_rows.l1 IS 'L1 modality (NULL for AgentEHR, which has no taxonomy).';
COMMENT ON COLUMN paper_rows.l2 IS 'L2 group.';
COMMENT ON COLUMN paper_rows.l3 IS 'L3 semantic task.';
COMMENT ON COLUMN paper_rows.in_mm_overall IS 'True when the row counts in the multimodal overall.';
COMMENT ON COLUMN paper_rows.f1 IS 'F1 of the line by its rule, in [0, 1].';
COMMENT ON COLUMN paper_rows.precision IS 'Precision of the line, in [0, 1].';
COMMENT ON COLUMN paper_rows.recall IS 'Recall of the line, in [0, 1].';
COMMENT ON COLUMN paper_rows.task_source IS 'Where fine_task came from: record, classifier, or coarse_task (mm_bench without a classifier file).';
COMMENT ON COLUMN paper_rows.in_overall IS 'True when the benchmark''s overall cell counts the row''s task (paper_taxonomy.in_overall).';
COMMENT ON COLUMN paper_rows.printed IS 'True when the paper prints the row''s task cell (paper_taxonomy.printed).';

CREATE OR REPLACE VIEW paper_cell_rows AS
-- every row in each cell it belongs to (one scan of paper_rows: a row per row and level)
WITH placed AS (
    SELECT r.run_id, r.benchmark, r.mode, r.model, v.level, r.qid, r.rec_no, r.f1,
           r.task_source,
           CASE v.level WHEN 'overall' THEN 'overall' WHEN 'group' THEN r.l2
                        WHEN 'semantic' THEN r.l3 ELSE r.fine_task END AS name,
           CASE v.level WHEN 'overall' THEN NULL WHEN 'group' THEN r.l1
                        WHEN 'semantic' THEN r.l2 ELSE coalesce(r.l3, r.benchmark) END
               AS parent,
           CASE v.level
               -- the tasks the benchmark's overall cell pools (paper_taxonomy.in_overall)
               WHEN 'overall' THEN r.in_overall
               WHEN 'group' THEN r.l2 IS NOT NULL
               WHEN 'semantic' THEN r.l3 IS NOT NULL
               ELSE true
           END AS member,
           CASE v.level
               WHEN 'overall' THEN true
               -- the task cells the paper prints (paper_taxonomy.printed), cut by the
               -- classifier, never by a stand-in
               WHEN 'task' THEN r.printed AND r.task_source <> 'coarse_task'
               -- the paper prints the groups and semantic tasks of EHR-Bench only
               ELSE r.benchmark = 'ehr_bench'
           END AS in_paper_table
    FROM paper_rows AS r
    CROSS JOIN (VALUES ('overall'), ('group'), ('semantic'), ('task')) AS v(level)
)
SELECT run_id, benchmark, mode, model, level, name, parent, in_paper_table, qid, rec_no, f1,
       task_source
FROM placed
WHERE member;

COMMENT ON VIEW paper_cell_rows IS 'paper_rows once per cell of the paper''s tables the row counts in: overall (EHR-Bench: every text_only row; mm_bench: the rows of the six multimodal L4 tasks; AgentEHR: the five tasks of its table, prescriptions left out), group (L2), semantic (L3) and task (L4).';
COMMENT ON COLUMN paper_cell_rows.run_id IS 'Leaderboard run.';
COMMENT ON COLUMN paper_cell_rows.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN paper_cell_rows.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN paper_cell_rows.model IS 'Canonical model key.';
COMMENT ON COLUMN paper_cell_rows.level IS 'overall, group, semantic or task.';
COMMENT ON COLUMN paper_cell_rows.name IS 'Name of the cell: overall, the L2 group, the L3 semantic task or the L4 task.';
COMMENT ON COLUMN paper_cell_rows.parent IS 'The layer above: the L1 modality of a group, the group of a semantic task, the semantic task of a task (the benchmark for AgentEHR tasks); NULL for overall.';
COMMENT ON COLUMN paper_cell_rows.in_paper_table IS 'True for the cells the paper''s tables and figures print.';
COMMENT ON COLUMN paper_cell_rows.qid IS 'qid of the row.';
COMMENT ON COLUMN paper_cell_rows.rec_no IS 'Record number of the row''s line (decides which row of a qid is its sample).';
COMMENT ON COLUMN paper_cell_rows.f1 IS 'F1 of the row, in [0, 1].';
COMMENT ON COLUMN paper_cell_rows.task_source IS 'paper_rows.task_source.';

CREATE OR REPLACE VIEW paper_cell_samples AS
-- compute_ci_from_per_sample_scores.py: {qid: f1} dicts over a node's rows (the last row of
-- a qid wins) for EHR-Bench and mm_bench; every line a sample for AgentEHR
SELECT run_id, benchmark, mode, model, level, name, qid, f1
FROM paper_cell_rows
WHERE benchmark = 'agent_ehr_bench'
UNION ALL
SELECT run_id, benchmark, mode, model, level, name, qid, f1
FROM paper_cell_rows
WHERE benchmark <> 'agent_ehr_bench'
QUALIFY row_number() OVER (PARTITION BY run_id, level, name, qid ORDER BY rec_no DESC) = 1;

COMMENT ON VIEW paper_cell_samples IS 'The per-sample scores behind each paper interval: for EHR-Bench and mm_bench one per question of the cell, the score of its last line (the {qid: f1} dicts of compute_ci_from_per_sample_scores.py); for AgentEHR every line.';
COMMENT ON COLUMN paper_cell_samples.run_id IS 'Leaderboard run.';
COMMENT ON COLUMN paper_cell_samples.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN paper_cell_samples.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN paper_cell_samples.model IS 'Canonical model key.';
COMMENT ON COLUMN paper_cell_samples.level IS 'overall, group, semantic or task.';
COMMENT ON COLUMN paper_cell_samples.name IS 'Cell name.';
COMMENT ON COLUMN paper_cell_samples.qid IS 'Question of the sample.';
COMMENT ON COLUMN paper_cell_samples.f1 IS 'The sample''s F1, in [0, 1].';

CREATE OR REPLACE VIEW paper_cells AS
WITH agg AS (
    SELECT run_id, min(benchmark) AS benchmark, min(mode) AS mode,
           min(model) AS model, level, name, min(parent) AS parent,
           bool_or(in_paper_table) AS in_paper_table, count(*) AS n, avg(f1) AS score,
           min(task_source) AS task_source
    FROM paper_cell_rows
    GROUP BY run_id, level, name
),
samples AS (
    SELECT run_id, level, name, count(*) AS ci_n, avg(f1) AS ci_mean,
           stddev_samp(f1) AS ci_sd
    FROM paper_cell_samples
    GROUP BY run_id, level, name
)
SELECT a.*, s.ci_n, s.ci_mean, s.ci_sd
FROM agg AS a
JOIN samples AS s ON s.run_id = a.run_id AND s.level = a.level AND s.name = a.name;

COMMENT ON VIEW paper_cells IS 'Each cell of the paper''s tables before its interval: the node score over its rows and the sample statistics of its interval (paper_table adds the Student-t bounds).';
COMMENT ON COLUMN paper_cells.run_id IS 'Leaderboard run.';
COMMENT ON COLUMN paper_cells.benchmark IS 'Benchmark.';
COMMENT ON COLUMN paper_cells.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN paper_cells.model IS 'Canonical model key.';
COMMENT ON COLUMN paper_cells.level IS 'overall, group, semantic or task.';
COMMENT ON COLUMN paper_cells.name IS 'Cell name.';
COMMENT ON COLUMN paper_cells.parent IS 'The layer above (see paper_cell_rows.parent).';
COMMENT ON COLUMN paper_cells.in_paper_table IS 'True for the cells the paper prints.';
COMMENT ON COLUMN paper_cells.n IS 'Rows of the cell (every line counts).';
COMMENT ON COLUMN paper_cells.score IS 'Mean F1 over the rows, in [0, 1] (aggregate.json f1).';
COMMENT ON COLUMN paper_cells.task_source IS 'paper_rows.task_source of the cell''s rows.';
COMMENT ON COLUMN paper_cells.ci_n IS 'Samples of the interval.';
COMMENT ON COLUMN paper_cells.ci_mean IS 'Mean of the samples.';
COMMENT ON COLUMN paper_cells.ci_sd IS 'Sample standard deviation of the samples (ddof = 1), NULL below 2 samples.';

CREATE OR REPLACE VIEW paper_delta_samples AS
-- compute_ci_diff over the qids both modes have (sorted common qids, a_i - b_i). The samples
-- are computed once for both sides (MATERIALIZED): read twice, the view computed them twice
-- (0.27 of the 0.41 s of CPU of paper_t_needed on a bench tree, 0.16 s once).
WITH samples AS MATERIALIZED (
    SELECT * FROM paper_cell_samples WHERE benchmark <> 'agent_ehr_bench'
)
SELECT a.benchmark, a.model, a.level, a.name, a.qid, a.f1 - o.f1 AS diff,
       a.run_id AS agentic_run_id, o.run_id AS oneshot_run_id
FROM samples AS a
JOIN samples AS o
    ON o.benchmark = a.benchmark AND o.model = a.model AND o.level = a.level
   AND o.name = a.name AND o.qid = a.qid
WHERE a.mode = 'agentic' AND o.mode = 'oneshot';

COMMENT ON VIEW paper_delta_samples IS 'Paired agentic - oneshot differences per question of a cell (compute_ci_from_per_sample_scores.py compute_ci_diff over the qids both runs have), EHR-Bench and mm_bench.';
COMMENT ON COLUMN paper_delta_samples.benchmark IS 'Benchmark.';
COMMENT ON COLUMN paper_delta_samples.model IS 'Canonical model key.';
COMMENT ON COLUMN paper_delta_samples.level IS 'overall, group, semantic or task.';
COMMENT ON COLUMN paper_delta_samples.name IS 'Cell name.';
COMMENT ON COLUMN paper_delta_samples.qid IS 'A question both runs have in the cell.';
COMMENT ON COLUMN paper_delta_samples.diff IS 'Agentic minus one-shot F1 of the question (fraction points).';
COMMENT ON COLUMN paper_delta_samples.agentic_run_id IS 'The agentic run.';
COMMENT ON COLUMN paper_delta_samples.oneshot_run_id IS 'The one-shot run.';

CREATE OR REPLACE VIEW paper_t_needed AS
SELECT DISTINCT ci_n - 1 AS df FROM paper_cells WHERE ci_n >= 2
UNION
SELECT DISTINCT p.n - 1 FROM (
    SELECT count(*) AS n FROM paper_delta_samples
    GROUP BY agentic_run_id, oneshot_run_id, level, name
) AS p WHERE p.n >= 2;

COMMENT ON VIEW paper_t_needed IS 'Degrees of freedom the paper''s intervals need; the ingest fills student_t_quantiles for each (etl/paper_stats.py).';
COMMENT ON COLUMN paper_t_needed.df IS 'Degrees of freedom: samples - 1.';

CREATE OR REPLACE VIEW paper_table AS
SELECT
    c.benchmark,
    c.mode,
    c.model,
    c.run_id,
    c.level,
    c.name,
    c.n,
    c.score,
    -- compute_ci: mean -/+ t(0.975, n - 1) * sd / sqrt(n), not clipped to [0, 1]; one
    -- sample: the mean both sides
    CASE WHEN c.ci_n = 1 THEN c.ci_mean
         ELSE c.ci_mean - q.q975 * c.ci_sd / sqrt(c.ci_n) END AS ci_low,
    CASE WHEN c.ci_n = 1 THEN c.ci_mean
         ELSE c.ci_mean + q.q975 * c.ci_sd / sqrt(c.ci_n) END AS ci_high,
    c.parent,
    c.in_paper_table,
    c.ci_n,
    c.ci_mean,
    ps.scorer,
    c.task_source,
    coalesce(m.display_name, c.model) AS display_name
FROM paper_cells AS c
LEFT JOIN student_t_quantiles AS q ON q.df = c.ci_n - 1
LEFT JOIN models AS m ON m.model = c.model
LEFT JOIN scorers AS ps ON ps.paper_table_for = c.benchmark;

COMMENT ON VIEW paper_table IS 'The paper''s tables, cell by cell, as the authors'' analysis chain computes them (reorganize_results.py -> compute_ci_from_per_sample_scores.py -> build_report.py): score = the node mean over every line (build_report''s cell; the multimodal overall count-weighted over the six multimodal L4 tasks), a 95% Student-t interval over the per-sample scores (the last line of each question for EHR-Bench and mm_bench, every line for AgentEHR), not clipped to [0, 1]. EHR-Bench rows are scored by paper_text (gold name only, answers str()-ed and stripped), AgentEHR rows by paper_agentehr, mm_bench rows are the authors'' scored (else rescored) numbers. Scores are fractions in [0, 1]. The leaderboard views (authors_text, score_text.py) give the other number of the same runs; both are named (scorer).';
COMMENT ON COLUMN paper_table.benchmark IS 'ehr_bench, agent_ehr_bench or mm_bench.';
COMMENT ON COLUMN paper_table.mode IS 'agentic (ClinSeek) or oneshot (curated input / reasoning).';
COMMENT ON COLUMN paper_table.model IS 'Canonical model key.';
COMMENT ON COLUMN paper_table.run_id IS 'Leaderboard run of the cell.';
COMMENT ON COLUMN paper_table.level IS 'overall (EHR-Bench: all text rows; mm_bench: the paper''s multimodal overall; AgentEHR: its five-task pool), group (L2), semantic (L3) or task (L4).';
COMMENT ON COLUMN paper_table.name IS 'Cell name: overall, the group, the semantic task or the task.';
COMMENT ON COLUMN paper_table.n IS 'Rows of the cell: every line counts (a question run several times counts several times).';
COMMENT ON COLUMN paper_table.score IS 'Mean F1 over the cell''s rows, a fraction in [0, 1] (the paper prints it x 100).';
COMMENT ON COLUMN paper_table.ci_low IS 'Lower bound of the 95% Student-t interval over the cell''s samples (not clipped: may fall below 0).';
COMMENT ON COLUMN paper_table.ci_high IS 'Upper bound of the 95% Student-t interval (not clipped: may exceed 1).';
COMMENT ON COLUMN paper_table.parent IS 'The layer above the cell (L1 modality of a group, group of a semantic task, semantic task of a task).';
COMMENT ON COLUMN paper_table.in_paper_table IS 'True for the cells the paper''s tables and figure print.';
COMMENT ON COLUMN paper_table.ci_n IS 'Samples of the interval (questions for EHR-Bench and mm_bench, lines for AgentEHR).';
COMMENT ON COLUMN paper_table.ci_mean IS 'Mean of the samples: the centre of the interval (equals score unless a question has several lines).';
COMMENT ON COLUMN paper_table.scorer IS 'Rule of the rows: paper_text (EHR-Bench), paper_agentehr (AgentEHR) or paper_mm (the authors'' per-question multimodal rows).';
COMMENT ON COLUMN paper_table.task_source IS 'Where the task of the rows came from: record, classifier, or coarse_task (mm_bench without a classifier file: CXR sub-tasks unsplit).';
COMMENT ON COLUMN paper_table.display_name IS 'Human model name.';

CREATE OR REPLACE VIEW paper_mode_delta AS
WITH cells AS (
    SELECT benchmark, model, level, name, in_paper_table, run_id, score, mode
    FROM paper_cells
),
paired AS (
    SELECT benchmark, model, level, name, agentic_run_id, oneshot_run_id, count(*) AS n,
           avg(diff) AS paired_mean, stddev_samp(diff) AS paired_sd
    FROM paper_delta_samples
    GROUP BY benchmark, model, level, name, agentic_run_id, oneshot_run_id
)
SELECT
    a.benchmark,
    a.model,
    a.level,
    a.name,
    coalesce(p.n, 0) AS n,
    -- build_report.py: the difference of the two table cells
    a.score - o.score AS delta,
    CASE WHEN p.n = 1 THEN p.paired_mean
         ELSE p.paired_mean - q.q975 * p.paired_sd / sqrt(p.n) END AS ci_low,
    CASE WHEN p.n = 1 THEN p.paired_mean
         ELSE p.paired_mean + q.q975 * p.paired_sd / sqrt(p.n) END AS ci_high,
    p.paired_mean,
    a.score AS agentic_score,
    o.score AS oneshot_score,
    a.in_paper_table AND (a.benchmark = 'ehr_bench' AND a.level <> 'task'
                          OR a.benchmark = 'mm_bench') AS in_paper_table,
    a.run_id AS agentic_run_id,
    o.run_id AS oneshot_run_id
FROM cells AS a
JOIN cells AS o
    ON o.benchmark = a.benchmark AND o.model = a.model AND o.level = a.level
   AND o.name = a.name AND o.mode = 'oneshot'
LEFT JOIN paired AS p
    ON p.agentic_run_id = a.run_id AND p.oneshot_run_id = o.run_id
   AND p.level = a.level AND p.name = a.name
LEFT JOIN student_t_quantiles AS q ON q.df = p.n - 1
WHERE a.mode = 'agentic' AND a.benchmark <> 'agent_ehr_bench';

COMMENT ON VIEW paper_mode_delta IS 'Agentic minus one-shot per paper cell, as the authors'' chain computes it: delta = the difference of the two table cells (build_report.py, unpaired), and a 95% Student-t interval of the paired per-question differences over the questions both runs have (compute_ci_from_per_sample_scores.py compute_ci_diff; the paper prints it for the EHR-Bench groups and overall, the same rule is applied to every other cell), not clipped. EHR-Bench and mm_bench (AgentEHR has no one-shot runs in the paper).';
COMMENT ON COLUMN paper_mode_delta.benchmark IS 'ehr_bench or mm_bench.';
COMMENT ON COLUMN paper_mode_delta.model IS 'Canonical model key.';
COMMENT ON COLUMN paper_mode_delta.level IS 'overall, group, semantic or task.';
COMMENT ON COLUMN paper_mode_delta.name IS 'Cell name.';
COMMENT ON COLUMN paper_mode_delta.n IS 'Questions of the paired interval (in both runs'' cell).';
COMMENT ON COLUMN paper_mode_delta.delta IS 'agentic score - oneshot score of the cell (fraction points).';
COMMENT ON COLUMN paper_mode_delta.ci_low IS 'Lower bound of the paired 95% Student-t interval of the per-question differences (not clipped).';
COMMENT ON COLUMN paper_mode_delta.ci_high IS 'Upper bound of that interval (not clipped).';
COMMENT ON COLUMN paper_mode_delta.paired_mean IS 'Mean per-question difference: the centre of the interval (equals delta when both cells hold the same questions once).';
COMMENT ON COLUMN paper_mode_delta.agentic_score IS 'The agentic cell''s score (paper_table.score).';
COMMENT ON COLUMN paper_mode_delta.oneshot_score IS 'The one-shot cell''s score.';
COMMENT ON COLUMN paper_mode_delta.in_paper_table IS 'True for the deltas the paper prints (EHR-Bench overall, groups and the semantic tasks of its figure; mm_bench six tasks and overall).';
COMMENT ON COLUMN paper_mode_delta.agentic_run_id IS 'The agentic run.';
COMMENT ON COLUMN paper_mode_delta.oneshot_run_id IS 'The one-shot run.';

CREATE OR REPLACE VIEW paper_hierarchy_reconciliation AS
-- reorganize_results.py's own output in the tree (hierarchical/<paradigm>/<bench>/<model>/
-- aggregate.json) beside the same numbers of paper_table
WITH reported AS (
    SELECT h.file_id, h.path, h.mode, h.benchmark, h.model, h.layer, h.node_path, h.metric,
           h.value,
           CASE WHEN h.layer = 1 AND h.benchmark = 'ehr_bench' AND h.node = 'text_only'
                     THEN 'overall'
                WHEN h.layer = 1 AND h.benchmark = 'mm_bench' AND h.node = 'multimodal'
                     THEN 'overall'
                WHEN h.layer = 2 THEN 'group'
                WHEN h.layer = 3 THEN 'semantic'
                WHEN h.layer = 4 THEN 'task' END AS level,
           CASE WHEN h.layer = 1 THEN 'overall' ELSE h.node END AS name
    FROM hierarchical_metrics AS h
    WHERE h.metric IN ('count', 'f1')
)
SELECT
    r.path,
    r.mode,
    r.benchmark,
    r.model,
    r.node_path,
    r.level,
    r.name,
    r.metric,
    r.value AS reported,
    CASE r.metric WHEN 'count' THEN CAST(p.n AS DOUBLE) ELSE p.score END AS recomputed,
    abs(r.value - CASE r.metric WHEN 'count' THEN CAST(p.n AS DOUBLE) ELSE p.score END)
        AS abs_diff,
    CASE
        WHEN r.level IS NULL THEN 'no_cell'
        WHEN p.run_id IS NULL THEN 'no_run'
        WHEN abs(r.value - CASE r.metric WHEN 'count' THEN CAST(p.n AS DOUBLE)
                                        ELSE p.score END) <= 1e-9 THEN 'match'
        ELSE 'mismatch'
    END AS status,
    p.run_id,
    r.file_id
FROM reported AS r
LEFT JOIN paper_table AS p
    ON p.benchmark = r.benchmark AND p.mode = r.mode AND p.model = r.model
   AND p.level = r.level AND p.name = r.name;

COMMENT ON VIEW paper_hierarchy_reconciliation IS 'The hierarchy reorganize_results.py writes into a results tree (hierarchical/<paradigm>/<bench>/<model>/aggregate.json, table hierarchical_metrics; never loaded as runs) beside paper_table: each node''s count and f1 against the cell''s n and score (the L1 text_only node of EHR-Bench and the L1 multimodal node of mm_bench are the overall cells). status: match (within 1e-9), mismatch (the files are out of date, or were made from other result files), no_run (no leaderboard run of that model and mode), no_cell (the model root and mm''s text_only modality, which the paper''s tables do not print).';
COMMENT ON COLUMN paper_hierarchy_reconciliation.path IS 'The aggregate.json file.';
COMMENT ON COLUMN paper_hierarchy_reconciliation.mode IS 'Its paradigm directory.';
COMMENT ON COLUMN paper_hierarchy_reconciliation.benchmark IS 'Its benchmark directory.';
COMMENT ON COLUMN paper_hierarchy_reconciliation.model IS 'Canonical model key of its model directory.';
COMMENT ON COLUMN paper_hierarchy_reconciliation.node_path IS 'The node: L1/L2/L3/L4 keys joined with /.';
COMMENT ON COLUMN paper_hierarchy_reconciliation.level IS 'The paper_table level of the node (NULL when none).';
COMMENT ON COLUMN paper_hierarchy_reconciliation.name IS 'The paper_table name of the node.';
COMMENT ON COLUMN paper_hierarchy_reconciliation.metric IS 'count or f1.';
COMMENT ON COLUMN paper_hierarchy_reconciliation.reported IS 'The number in aggregate.json.';
COMMENT ON COLUMN paper_hierarchy_reconciliation.recomputed IS 'paper_table.n (count) or paper_table.score (f1).';
COMMENT ON COLUMN paper_hierarchy_reconciliation.abs_diff IS '|reported - recomputed|.';
COMMENT ON COLUMN paper_hierarchy_reconciliation.status IS 'match, mismatch, no_run or no_cell.';
COMMENT ON COLUMN paper_hierarchy_reconciliation.run_id IS 'The leaderboard run of the cell.';
COMMENT ON COLUMN paper_hierarchy_reconciliation.file_id IS 'The aggregate.json file (files.file_id).';
