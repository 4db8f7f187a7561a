-- The rules the views read instead of naming scorers, benchmarks, statuses and tasks by
-- hand, written by every build from their Python homes (etl/scoring/registry.py SCORERS,
-- etl/benchmarks.py FULL_SPLITS, etl/statuses.py, etl/tasks.py) before the views are created
-- (etl/views.py apply_views). A change to any changes the code fingerprint, so the database
-- is rebuilt, never updated, under new rules. tests/views/test_sql_literals.py refuses a
-- name of theirs typed into sql/ outside its allow-list.

CREATE TABLE scorers (
    scorer             VARCHAR,
    title              VARCHAR,
    description        VARCHAR,
    benchmarks         VARCHAR,
    rows_made          VARCHAR,
    question_rows      VARCHAR,
    line_rows          VARCHAR,
    file_kinds         VARCHAR,
    extra              BOOLEAN,
    default_for        VARCHAR,
    default_rank       INTEGER,
    default_needs_rows BOOLEAN,
    score_rule         VARCHAR,
    status_rule        VARCHAR,
    paper_table_for    VARCHAR,
    marks_no_gold      BOOLEAN,
    module             VARCHAR
);
COMMENT ON TABLE scorers IS 'One row per scorer the warehouse knows (question_scores.scorer, line_scores.scorer), from the registry etl/scoring/registry.py: what it is, how its rows are made, and the board rules the leaderboard and paper views read from here: which scorer is a board''s default, which are shown beside it, how a board reads a row and whether the result''s status counts.';
COMMENT ON COLUMN scorers.scorer IS 'Scorer name, as in question_scores.scorer and line_scores.scorer.';
COMMENT ON COLUMN scorers.title IS 'The scorer in a few words (the explorer and the report show it).';
COMMENT ON COLUMN scorers.description IS 'What the scorer computes, in one or two sentences.';
COMMENT ON COLUMN scorers.benchmarks IS 'The results it makes question_scores rows for: all, text (every benchmark but mm_bench) or multimodal (mm_bench).';
COMMENT ON COLUMN scorers.rows_made IS 'How its rows are made, in words (per result at parse time, per line of a run''s results.jsonl, read from the authors'' score files).';
COMMENT ON COLUMN scorers.question_rows IS 'question_scores rows: result (computed for every result of its benchmarks when the file is parsed), authors_file (read from the authors'' files of file_kinds), NULL (none).';
COMMENT ON COLUMN scorers.line_rows IS 'line_scores rows: results_line (computed for every line of a run''s top-level results.jsonl, whatever its benchmark), authors_file (one per line of the authors'' files of file_kinds), NULL (none).';
COMMENT ON COLUMN scorers.file_kinds IS 'For rows read from the authors'' files: the file kinds (files.kind) read, comma-separated; NULL otherwise.';
COMMENT ON COLUMN scorers.extra IS 'True for a scorer shown beside the default on every leaderboard (leaderboard_scorers, the *_all_scorers views), never instead of it.';
COMMENT ON COLUMN scorers.default_for IS 'text or multimodal: the boards (by benchmark kind) whose default this scorer can be; NULL when it is never a default.';
COMMENT ON COLUMN scorers.default_rank IS 'Order among the defaults of one benchmark kind: a run''s default is the lowest rank it has rows of, the highest rank whatever it has (default_needs_rows false).';
COMMENT ON COLUMN scorers.default_needs_rows IS 'True when this default is taken only for a run that has rows of it; false for the last choice, taken regardless.';
COMMENT ON COLUMN scorers.score_rule IS 'How a board reads one row: f1 (question_scores.f1), or authors_unified (the authors'' multimodal unified score: f1 for set rows, the judge verdict for llm_judge rows, 0 for incomplete rows).';
COMMENT ON COLUMN scorers.status_rule IS 'How a board treats the result''s status: as_scored (never consulted, as the authors'' scorers do) or failed_zero (error and incomplete results score 0).';
COMMENT ON COLUMN scorers.paper_table_for IS 'The benchmark whose rows of the paper''s tables (paper_rows, paper_table) this scorer makes; NULL for none.';
COMMENT ON COLUMN scorers.marks_no_gold IS 'True for the scorer whose rows mark (route no_gold) the results with an empty gold by the authors'' multimodal rule, which the authors'' scorer skips: a board whose default is read from the authors'' files leaves those questions out, and coverage counts them (no_gold_questions).';
COMMENT ON COLUMN scorers.module IS 'The module holding its rules (etl/scoring/...).';

CREATE TABLE benchmarks (
    benchmark   VARCHAR,
    kind        VARCHAR,
    full_split  VARCHAR,
    n_questions INTEGER
);
COMMENT ON TABLE benchmarks IS 'The benchmarks the warehouse knows by name (etl/benchmarks.py): their kind and full split. Any other benchmark directory is data, read as a text benchmark. A current run is on the leaderboard when its split is a full split of this table or any other split named full* (view full_split_runs).';
COMMENT ON COLUMN benchmarks.benchmark IS 'Benchmark: ehr_bench, agent_ehr_bench, mm_bench.';
COMMENT ON COLUMN benchmarks.kind IS 'text or multimodal: which scorers apply to its results and which are its board''s defaults (scorers.benchmarks, scorers.default_for).';
COMMENT ON COLUMN benchmarks.full_split IS 'Its full split: full1800, subset600, full2703.';
COMMENT ON COLUMN benchmarks.n_questions IS 'Questions of the full split.';

CREATE TABLE result_statuses (
    written VARCHAR,
    status  VARCHAR,
    failed  BOOLEAN
);
COMMENT ON TABLE result_statuses IS 'The status map (etl/statuses.py): each spelling a writer uses for a result''s status (stripped, lower-cased) and the status it means (results.status: success, incomplete, error), with failed = the statuses a board whose scorer reads the status scores 0 (scorers.status_rule failed_zero).';
COMMENT ON COLUMN result_statuses.written IS 'The status as written (ok, success, incomplete, error), compared stripped and lower-cased.';
COMMENT ON COLUMN result_statuses.status IS 'What it means: success, incomplete or error.';
COMMENT ON COLUMN result_statuses.failed IS 'True for incomplete and error: no scored answer was reached, and a failed_zero board scores the result 0.';

CREATE TABLE tasks (
    task       VARCHAR,
    task_group VARCHAR
);
COMMENT ON TABLE tasks IS 'The text tasks the warehouse knows by name and their group (etl/tasks.py; results.task_group of a text result without a task_type). A task not listed is data: its group is what its record names, or the multimodal family of its name.';
COMMENT ON COLUMN tasks.task IS 'Task name as the records write it (EHR-Bench''s 45 tasks).';
COMMENT ON COLUMN tasks.task_group IS 'risk_prediction or decision_making.';

CREATE TABLE paper_taxonomy (
    benchmark     VARCHAR,
    fine_task     VARCHAR,
    l1            VARCHAR,
    l2            VARCHAR,
    l3            VARCHAR,
    in_mm_overall BOOLEAN,
    in_overall    BOOLEAN,
    printed       BOOLEAN
);
COMMENT ON TABLE paper_taxonomy IS 'The task taxonomy of the paper''s tables (etl/tasks.py; reorganize_results.py L2_MAP / L3_MAP / l1_of): each EHR-Bench task and each mm_bench fine task (after MM_FINE_RENAME) with its modality (L1), group (L2) and semantic task (L3), and the five tasks of the AgentEHR table (no layers). A task not listed has no place in the paper''s tables (the authors'' script stops on it).';
COMMENT ON COLUMN paper_taxonomy.benchmark IS 'ehr_bench, mm_bench or agent_ehr_bench.';
COMMENT ON COLUMN paper_taxonomy.fine_task IS 'L4: the EHR-Bench or AgentEHR task, or the mm_bench fine task after the authors'' rename (Inpatient_Mortality -> inpatient_mortality_mm, phenotype_group_assignment -> phenotype_ccs).';
COMMENT ON COLUMN paper_taxonomy.l1 IS 'L1 modality: text_only or multimodal; NULL for AgentEHR.';
COMMENT ON COLUMN paper_taxonomy.l2 IS 'L2 group: risk_prediction, decision_making, ehr_query, cxr_vqa, risk_prediction_mm, phenotyping_mm; NULL for AgentEHR.';
COMMENT ON COLUMN paper_taxonomy.l3 IS 'L3 semantic task (temporal and format variants merged: ICU_Mortality_*day -> ICU_Mortality, ...); NULL for AgentEHR.';
COMMENT ON COLUMN paper_taxonomy.in_mm_overall IS 'True for the mm_bench L4 tasks the multimodal overall pools (the six multimodal tasks, and ehrxqa_image, their unsplit stand-in when no classifier file is loaded).';
COMMENT ON COLUMN paper_taxonomy.in_overall IS 'True when the benchmark''s overall cell counts the task: every EHR-Bench task (all text only), the multimodal tasks of mm_bench, the five tasks of the AgentEHR table.';
COMMENT ON COLUMN paper_taxonomy.printed IS 'True when the paper prints the task''s own cell (the six multimodal L4 tasks, the five AgentEHR tasks).';

CREATE TABLE paper_task_names (
    benchmark VARCHAR,
    written   VARCHAR,
    fine_task VARCHAR,
    source    VARCHAR
);
COMMENT ON TABLE paper_task_names IS 'How the paper''s chain names an mm_bench question''s fine task (etl/tasks.py): source classifier, a label of the authors'' task classifier renamed (MM_FINE_RENAME) or dropped (MM_IGNORE_FINE: fine_task NULL); source coarse_task, the benchmark task that stands in for a fine task when no classifier file is loaded. A label not listed is its own fine task.';
COMMENT ON COLUMN paper_task_names.benchmark IS 'mm_bench.';
COMMENT ON COLUMN paper_task_names.written IS 'The classifier''s label, or the benchmark task.';
COMMENT ON COLUMN paper_task_names.fine_task IS 'The fine task it becomes; NULL for a classifier label the authors drop (prescriptions, other).';
COMMENT ON COLUMN paper_task_names.source IS 'classifier or coarse_task.';
