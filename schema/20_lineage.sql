-- Archive lineage and run history: what each _archive/<name> directory was, and
-- the metadata files of every run (manifest, status, region_map, cmd, run.log).
-- Lineage itself (which current run superseded an archive) is computed in sql/60_lineage.sql.

CREATE TABLE archive_runs (
    run_id       VARCHAR PRIMARY KEY,
    archive_name VARCHAR,
    benchmark    VARCHAR,
    mode         VARCHAR,
    model        VARCHAR,
    model_alias  VARCHAR,
    split        VARCHAR,
    size         INTEGER,
    match_split  VARCHAR,
    reason       VARCHAR,
    reason_tag   VARCHAR,
    parsed_by    VARCHAR
);
COMMENT ON TABLE archive_runs IS 'One row per archived run (_archive/<name>): what its directory name says it was, read by the rules in etl/archive.py or etl/archive_overrides.json.';
COMMENT ON COLUMN archive_runs.run_id IS 'Run id of the archive, _archive/<name>, or _archive/<name>/<model> for each model directory of an archive holding several runs (see runs).';
COMMENT ON COLUMN archive_runs.archive_name IS 'Directory name under _archive/ exactly as found.';
COMMENT ON COLUMN archive_runs.benchmark IS 'Benchmark the name names (ehr -> ehr_bench, mm -> mm_bench, ...); NULL when the name cannot be read.';
COMMENT ON COLUMN archive_runs.mode IS 'agentic or oneshot as the name says; NULL when it does not (archive_lineage then infers it from the results).';
COMMENT ON COLUMN archive_runs.model IS 'Canonical model key the alias in the name resolves to (opus46 -> claude_opus_4_6), or that of the model directory for a run inside an archive of several runs; NULL when neither gives one.';
COMMENT ON COLUMN archive_runs.model_alias IS 'The model part of the name exactly as written (opus46, kimi_k2_5), or the model directory name for a run inside an archive of several runs.';
COMMENT ON COLUMN archive_runs.split IS 'Split the name states: smokeN, fullN, subsetN as written; a bare number equal to the benchmark''s full size becomes its full split (1800 -> full1800).';
COMMENT ON COLUMN archive_runs.size IS 'Question count the name states (20 for smoke20, 1800 for 1800), NULL when none.';
COMMENT ON COLUMN archive_runs.match_split IS 'Split a current run must have to supersede this archive: split, or the benchmark''s full split when the name states none.';
COMMENT ON COLUMN archive_runs.reason IS 'Why it was archived, from the reason tag: retry, salvage, early, rescoring, partial, duplicate, superseded; NULL when the tag says nothing known.';
COMMENT ON COLUMN archive_runs.reason_tag IS 'The leftover words of the name as written, e.g. pre_ssl_retry, salvage_patched, scored_novocab.';
COMMENT ON COLUMN archive_runs.parsed_by IS 'rules (name read by the rules), override (fields from etl/archive_overrides.json) or unparsed (the rules could not read it; fields NULL).';

CREATE TABLE run_meta (
    run_id     VARCHAR,
    file_id    VARCHAR,
    source     VARCHAR,
    source_dir VARCHAR,
    key        VARCHAR,
    value      VARCHAR,
    value_type VARCHAR
);
COMMENT ON TABLE run_meta IS 'Every value of every run metadata file (manifest.json, status.json, region_map.json, cmd.txt) in long form: one row per leaf value.';
COMMENT ON COLUMN run_meta.run_id IS 'Run the file belongs to; NULL for files of a raw multi-model run directory itself (manifest.json), which source_dir identifies.';
COMMENT ON COLUMN run_meta.file_id IS 'File the value came from (see files).';
COMMENT ON COLUMN run_meta.source IS 'File kind: manifest, status, region_map or cmd.';
COMMENT ON COLUMN run_meta.source_dir IS 'Logical directory of the file relative to the root (the shard directory for status.json, the raw run for manifest.json).';
COMMENT ON COLUMN run_meta.key IS 'Path of the value in the file: dotted keys and [i] list positions (shards[0].region); for cmd.txt the option name (--bedrock_region), argv[i] for positional words, command for the whole line.';
COMMENT ON COLUMN run_meta.value IS 'The value as text (JSON numbers and booleans as written by JSON; NULL for null).';
COMMENT ON COLUMN run_meta.value_type IS 'string, number, boolean, null, or flag (a cmd.txt option without a value).';

CREATE TABLE run_regions (
    run_id           VARCHAR,
    file_id          VARCHAR,
    source           VARCHAR,
    source_dir       VARCHAR,
    model_tag        VARCHAR,
    model            VARCHAR,
    region           VARCHAR,
    backend_model_id VARCHAR,
    input_rows       BIGINT,
    results_rows     BIGINT,
    returncode       INTEGER,
    pid              BIGINT
);
COMMENT ON TABLE run_regions IS 'Backend region and model id per run shard, as the metadata files state them: status.json (one shard), manifest.json (every shard of a raw multi-model run), region_map.json, cmd.txt and run.log.';
COMMENT ON COLUMN run_regions.run_id IS 'Run the file belongs to (NULL for manifest.json of a raw multi-model run; join on source_dir and model_tag).';
COMMENT ON COLUMN run_regions.file_id IS 'File the row came from.';
COMMENT ON COLUMN run_regions.source IS 'File kind it came from: status, manifest, region_map, cmd or run_log.';
COMMENT ON COLUMN run_regions.source_dir IS 'Logical directory of that file relative to the root.';
COMMENT ON COLUMN run_regions.model_tag IS 'Model slug of the shard as the driver wrote it (claude-sonnet-4-6).';
COMMENT ON COLUMN run_regions.model IS 'Canonical model key of the shard (from model_tag, friendly name or backend id).';
COMMENT ON COLUMN run_regions.region IS 'Backend region, e.g. us-east-1.';
COMMENT ON COLUMN run_regions.backend_model_id IS 'Backend model id used in that region, e.g. moonshotai.kimi-k2.5.';
COMMENT ON COLUMN run_regions.input_rows IS 'Input rows given to the shard (status.json input_rows, manifest rows).';
COMMENT ON COLUMN run_regions.results_rows IS 'Result lines the shard wrote, as status.json counted them.';
COMMENT ON COLUMN run_regions.returncode IS 'Exit code of the shard process (status.json).';
COMMENT ON COLUMN run_regions.pid IS 'Process id of the shard (status.json).';

CREATE TABLE run_log_stats (
    run_id              VARCHAR,
    file_id             VARCHAR,
    source_dir          VARCHAR,
    n_lines             BIGINT,
    n_errors            BIGINT,
    n_tool_errors       BIGINT,
    n_tool_name_fixes   BIGINT,
    n_synthetic_finish  BIGINT,
    n_exceptions        BIGINT,
    n_tool_calls        BIGINT,
    n_truncated_results BIGINT,
    n_finish_called     BIGINT,
    n_written           BIGINT,
    n_questions_started BIGINT,
    backend_model_id    VARCHAR,
    backend_region      VARCHAR,
    -- a shard's work-stealing helpers write logs of their own (run_steal_NN.log)
    steal_run           INTEGER
);
COMMENT ON TABLE run_log_stats IS 'Counts of the notable lines of each run.log (the agent driver''s stdout and stderr), one row per log file.';
COMMENT ON COLUMN run_log_stats.run_id IS 'Run the log belongs to.';
COMMENT ON COLUMN run_log_stats.file_id IS 'The run.log file (see files).';
COMMENT ON COLUMN run_log_stats.source_dir IS 'Logical directory of the log (run or shard directory).';
COMMENT ON COLUMN run_log_stats.n_lines IS 'Lines in the log.';
COMMENT ON COLUMN run_log_stats.n_errors IS 'Question-level error lines: "[qid=...] ERROR: ..." and "ERROR before completion", plus other lines starting with ERROR or [ERROR].';
COMMENT ON COLUMN run_log_stats.n_tool_errors IS 'Failed tool executions: "Round N TOOL_ERROR[i]:" lines.';
COMMENT ON COLUMN run_log_stats.n_tool_name_fixes IS 'Tool names the harness rewrote: "TOOL_NAME_FIX:" lines (ehr_load_ehr -> ehr.load_ehr).';
COMMENT ON COLUMN run_log_stats.n_synthetic_finish IS 'Finish calls synthesized from a plain-text answer: lines containing "synthesized ehr.finish" (any case).';
COMMENT ON COLUMN run_log_stats.n_exceptions IS 'Python tracebacks: "Traceback (most recent call last):" lines.';
COMMENT ON COLUMN run_log_stats.n_tool_calls IS 'Tool calls logged: "Round N TOOL_CALL[i]:" lines.';
COMMENT ON COLUMN run_log_stats.n_truncated_results IS 'Tool results cut to the size cap: "TOOL_RESULT_TRUNCATED" lines.';
COMMENT ON COLUMN run_log_stats.n_finish_called IS 'Questions that ended with a real finish call: "ehr.finish called - DONE" (deploy_agent_mm.py) or "DONE Round N: ehr.finish called" (run_text.py) lines.';
COMMENT ON COLUMN run_log_stats.n_written IS 'Results written: "[qid=...] task i/N | run r/R written to ..." lines.';
COMMENT ON COLUMN run_log_stats.n_questions_started IS 'Questions started: "Processing task i/N | question ..." lines.';
COMMENT ON COLUMN run_log_stats.backend_model_id IS 'Backend model id from the "Using AWS Bedrock: <model id> @ <region>" line (the first one).';
COMMENT ON COLUMN run_log_stats.backend_region IS 'Backend region from the same line.';
COMMENT ON COLUMN run_log_stats.steal_run IS 'NN of a work-stealing helper''s log run_steal_NN.log (run_multi_model_eval.py try_steal_work); NULL for run.log. The authors'' aggregate() adds both kinds of log of a shard together (salvage, name_fix).';
