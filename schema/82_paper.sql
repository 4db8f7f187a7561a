-- The paper's analysis chain (UCSC-VLAA/ClinSeekAgent openresearcher_ehr/analysis/:
-- reorganize_results.py -> statistic_significance/compute_ci_from_per_sample_scores.py ->
-- findings_20260501/scripts/build_report.py) and the other shapes the authors' scripts write
-- into or read from a results tree. Rules: etl/scoring/paper.py, etl/scoring/authors_files.py;
-- views: sql/82_paper.sql.

CREATE TABLE line_scores (
    run_id      VARCHAR,
    file_id     VARCHAR,
    line_no     BIGINT,
    rec_no      BIGINT,
    kind        VARCHAR,
    qid         VARCHAR,
    run_index   INTEGER,
    task        VARCHAR,
    task_type   VARCHAR,
    scorer      VARCHAR,
    f1          DOUBLE,
    precision   DOUBLE,
    recall      DOUBLE,
    exact_match DOUBLE,
    gold        VARCHAR,
    predictions VARCHAR,
    raw_status  VARCHAR,
    completed   BOOLEAN,
    stop_reason VARCHAR
);
COMMENT ON TABLE line_scores IS 'One row per record line and line-level rule of the files the paper''s chain and the authors'' helper scripts read line by line, duplicates and superseded attempts included (they count every line): a run''s top-level results.jsonl scored by paper_text (reorganize_results.py), paper_agentehr (the AgentEHR table of compute_ci_from_per_sample_scores.py) and ccs_helper (score_diagnoses_ccs_results.py), and every line of scored.jsonl / rescored.jsonl as paper_mm (reorganize_results.py load_mm_bench_rows). Rules: etl/scoring/paper.py, etl/scoring/authors_files.py.';
COMMENT ON COLUMN line_scores.run_id IS 'Run the file belongs to.';
COMMENT ON COLUMN line_scores.file_id IS 'File of the line (files.file_id).';
COMMENT ON COLUMN line_scores.line_no IS '1-based line of the file.';
COMMENT ON COLUMN line_scores.rec_no IS '1-based record number within the file (file order: the later line has the larger number).';
COMMENT ON COLUMN line_scores.kind IS 'Kind of the file: results_top (a run''s results.jsonl), scored or rescored.';
COMMENT ON COLUMN line_scores.qid IS 'qid of the record as written (NULL when it has none: the authors'' scripts still count the line).';
COMMENT ON COLUMN line_scores.run_index IS 'run_index of the record as written (NULL when absent, or not an integer an INTEGER holds: that record is then rejected for its run_index).';
COMMENT ON COLUMN line_scores.task IS 'task of the record as written.';
COMMENT ON COLUMN line_scores.task_type IS 'task_type of the record as written (risk_prediction / decision_making).';
COMMENT ON COLUMN line_scores.scorer IS 'Rule of the row: paper_text, paper_agentehr, ccs_helper (results lines) or paper_mm (scored / rescored lines: the authors'' own numbers, f1 / precision / recall with a missing value read as 0).';
COMMENT ON COLUMN line_scores.f1 IS 'F1 of the line by the rule, a fraction in [0, 1].';
COMMENT ON COLUMN line_scores.precision IS 'Precision of the line by the rule, in [0, 1].';
COMMENT ON COLUMN line_scores.recall IS 'Recall of the line by the rule, in [0, 1].';
COMMENT ON COLUMN line_scores.exact_match IS 'Set equality (1/0) where the rule defines it (paper_agentehr, ccs_helper); NULL for paper_text and paper_mm, which have none.';
COMMENT ON COLUMN line_scores.gold IS 'The gold strings the rule compared, as JSON text.';
COMMENT ON COLUMN line_scores.predictions IS 'The prediction the rule compared, as JSON text.';
COMMENT ON COLUMN line_scores.raw_status IS 'status of the record as written (NULL when absent): the helpers filter on it (analyze_tool_call_averages.py counts status = success by default).';
COMMENT ON COLUMN line_scores.completed IS 'completed of the record as written.';
COMMENT ON COLUMN line_scores.stop_reason IS 'stop_reason of the record as written.';

CREATE TABLE line_tool_counts (
    run_id  VARCHAR,
    file_id VARCHAR,
    rec_no  BIGINT,
    tool    VARCHAR,
    n_calls INTEGER
);
COMMENT ON TABLE line_tool_counts IS 'Tool calls of each record line of a run''s top-level results.jsonl, per tool name as the authors'' analyze_tool_call_averages.py counts them (every tool_calls entry of the assistant messages; names through its normalize_tool_name): what tool.json is reconciled against.';
COMMENT ON COLUMN line_tool_counts.run_id IS 'Run of the file.';
COMMENT ON COLUMN line_tool_counts.file_id IS 'File of the line.';
COMMENT ON COLUMN line_tool_counts.rec_no IS 'Record number of the line (line_scores.rec_no).';
COMMENT ON COLUMN line_tool_counts.tool IS 'Tool name after the authors'' normalize_tool_name (ehr_x -> ehr.x, cut at the first character outside [A-Za-z0-9_.]).';
COMMENT ON COLUMN line_tool_counts.n_calls IS 'Calls of that tool in the line (> 0).';

CREATE TABLE mm_task_classification (
    file_id         VARCHAR,
    path            VARCHAR,
    line_no         BIGINT,
    qid             VARCHAR,
    coarse_task     VARCHAR,
    raw_task        VARCHAR,
    is_multimodal   BOOLEAN,
    multimodal_kind VARCHAR
);
COMMENT ON TABLE mm_task_classification IS 'The authors'' multimodal task classifier output (analysis/mm_bench_classify/classification_*.jsonl): the fine task of each mm_bench question that the paper''s multimodal table is cut by (cxr_finding_presence, mortality_24h, ...). Found anywhere in the tree under a directory named mm_bench_classify; the views use the file with the greatest name, as reorganize_results.py does.';
COMMENT ON COLUMN mm_task_classification.file_id IS 'Classifier file of the row.';
COMMENT ON COLUMN mm_task_classification.path IS 'Logical path of that file.';
COMMENT ON COLUMN mm_task_classification.line_no IS 'Line of the file.';
COMMENT ON COLUMN mm_task_classification.qid IS 'Question id.';
COMMENT ON COLUMN mm_task_classification.coarse_task IS 'The benchmark task of the question (ehrxqa_image, medmod_radiology, ...).';
COMMENT ON COLUMN mm_task_classification.raw_task IS 'classification.task (else classification_fallback.task, else other), before the authors'' rename: cxr_finding_enumeration, Inpatient_Mortality, phenotype_group_assignment, ...';
COMMENT ON COLUMN mm_task_classification.is_multimodal IS 'classification.is_multimodal as written.';
COMMENT ON COLUMN mm_task_classification.multimodal_kind IS 'classification.multimodal_kind (none when absent).';

CREATE TABLE student_t_quantiles (
    df       INTEGER,
    q975     DOUBLE
);
COMMENT ON TABLE student_t_quantiles IS 'The 0.975 quantile of Student''s t distribution for the degrees of freedom the paper''s intervals need (scipy.stats.t.ppf(0.975, df) of compute_ci_from_per_sample_scores.py), computed after load in pure Python (etl/paper_stats.py) for every n - 1 of paper_cells.';
COMMENT ON COLUMN student_t_quantiles.df IS 'Degrees of freedom (n - 1 of a cell with n samples).';
COMMENT ON COLUMN student_t_quantiles.q975 IS 'The quantile t such that P(T <= t) = 0.975.';

CREATE TABLE hierarchical_metrics (
    file_id   VARCHAR,
    path      VARCHAR,
    mode      VARCHAR,
    benchmark VARCHAR,
    model_dir VARCHAR,
    model     VARCHAR,
    layer     INTEGER,
    node_path VARCHAR,
    node      VARCHAR,
    metric    VARCHAR,
    value     DOUBLE
);
COMMENT ON TABLE hierarchical_metrics IS 'Every number of the aggregate.json files reorganize_results.py writes to <root>/hierarchical/<paradigm>/<bench>/<model>/ (its default output inside the results tree): count, f1, precision, recall and their sums per node of the L1/L2/L3/L4 taxonomy. Derived output, never a run; reconciled against the paper views (paper_hierarchy_reconciliation).';
COMMENT ON COLUMN hierarchical_metrics.file_id IS 'The aggregate.json file.';
COMMENT ON COLUMN hierarchical_metrics.path IS 'Its logical path.';
COMMENT ON COLUMN hierarchical_metrics.mode IS 'The paradigm directory: agentic or oneshot.';
COMMENT ON COLUMN hierarchical_metrics.benchmark IS 'The benchmark directory: ehr_bench or mm_bench.';
COMMENT ON COLUMN hierarchical_metrics.model_dir IS 'The model directory as named.';
COMMENT ON COLUMN hierarchical_metrics.model IS 'Canonical model key of that directory.';
COMMENT ON COLUMN hierarchical_metrics.layer IS 'Depth of the node: 0 the model root, 1 L1 modality, 2 L2 group, 3 L3 semantic task, 4 L4 task.';
COMMENT ON COLUMN hierarchical_metrics.node_path IS 'Keys from the root to the node, joined with /.';
COMMENT ON COLUMN hierarchical_metrics.node IS 'The node''s own key (NULL at the root).';
COMMENT ON COLUMN hierarchical_metrics.metric IS 'count, f1, precision, recall, f1_sum, prec_sum or rec_sum.';
COMMENT ON COLUMN hierarchical_metrics.value IS 'The number as written.';

CREATE TABLE repaired_result_lines (
    file_id     VARCHAR,
    run_id      VARCHAR,
    line_no     BIGINT,
    qid         VARCHAR,
    raw_status  VARCHAR,
    completed   BOOLEAN,
    stop_reason VARCHAR,
    repaired    BOOLEAN
);
COMMENT ON TABLE repaired_result_lines IS 'Each line of a results.repaired.jsonl (helper/repair_diagnoses_ccs_results.py: a copy of the run''s results.jsonl where incomplete diagnoses_ccs records get a synthetic ehr.finish, stop_reason repair_finish_tool_call). A derived copy, never loaded as results; what its summary (results.repaired.summary.json) is reconciled against.';
COMMENT ON COLUMN repaired_result_lines.file_id IS 'The repaired file.';
COMMENT ON COLUMN repaired_result_lines.run_id IS 'Run whose results.jsonl it repairs.';
COMMENT ON COLUMN repaired_result_lines.line_no IS 'Line of the file.';
COMMENT ON COLUMN repaired_result_lines.qid IS 'qid as written.';
COMMENT ON COLUMN repaired_result_lines.raw_status IS 'status as written.';
COMMENT ON COLUMN repaired_result_lines.completed IS 'completed as written.';
COMMENT ON COLUMN repaired_result_lines.stop_reason IS 'stop_reason as written.';
COMMENT ON COLUMN repaired_result_lines.repaired IS 'repair_info.repaired of the line.';
