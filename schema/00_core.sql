-- Core tables of the warehouse. Every table and column carries a COMMENT so BI tools
-- (Metabase, Superset, DBeaver) show what it means. The Python code reads this file to
-- learn the column names and types it stages, so this file is the one source of truth.

CREATE TABLE ingests (
    ingest_id      VARCHAR PRIMARY KEY,
    started_at     TIMESTAMP,
    finished_at    TIMESTAMP,
    root           VARCHAR,
    n_files        BIGINT,
    n_results      BIGINT,
    n_rejects      BIGINT,
    n_parsed_files BIGINT,
    tool_version   VARCHAR,
    options        VARCHAR
);
COMMENT ON TABLE ingests IS 'One row per ingest that built this database (the last one builds it; earlier ones are carried over).';
COMMENT ON COLUMN ingests.ingest_id IS 'Identifier of the ingest (UTC timestamp plus a random suffix).';
COMMENT ON COLUMN ingests.started_at IS 'UTC time the ingest started.';
COMMENT ON COLUMN ingests.finished_at IS 'UTC time the ingest finished, just before publishing.';
COMMENT ON COLUMN ingests.root IS 'The results tree root as given on the command line.';
COMMENT ON COLUMN ingests.n_files IS 'Files seen in the tree (loaded or not).';
COMMENT ON COLUMN ingests.n_results IS 'Rows in results after deduplication.';
COMMENT ON COLUMN ingests.n_rejects IS 'Rows in rejects (errors and repairs).';
COMMENT ON COLUMN ingests.n_parsed_files IS 'Files actually parsed by this ingest (the rest came from the cache of an earlier ingest).';
COMMENT ON COLUMN ingests.tool_version IS 'Version of the etl package and its parser.';
COMMENT ON COLUMN ingests.options IS 'JSON of the options that change the contents (redact, keep images).';

CREATE TABLE models (
    model        VARCHAR PRIMARY KEY,
    display_name VARCHAR
);
COMMENT ON TABLE models IS 'Canonical model keys (snake_case directory names) and their display names.';
COMMENT ON COLUMN models.model IS 'Canonical model key, e.g. claude_opus_4_6.';
COMMENT ON COLUMN models.display_name IS 'Human name, e.g. Claude Opus 4.6; the key itself for models not in the built-in list.';

CREATE TABLE model_aliases (
    alias VARCHAR PRIMARY KEY,
    model VARCHAR
);
COMMENT ON TABLE model_aliases IS 'Every spelling that names a model (dashed slugs, backend ids, archive aliases such as opus46) mapped to its canonical key.';
COMMENT ON COLUMN model_aliases.alias IS 'A spelling found in the tree or in records, lower-cased.';
COMMENT ON COLUMN model_aliases.model IS 'Canonical model key it resolves to.';

CREATE TABLE runs (
    run_id             VARCHAR PRIMARY KEY,
    benchmark          VARCHAR,
    mode               VARCHAR,
    split              VARCHAR,
    model              VARCHAR,
    is_archived        BOOLEAN,
    archive_name       VARCHAR,
    path               VARCHAR,
    real_path          VARCHAR,
    n_results          BIGINT,
    expected_questions INTEGER,
    model_dir          VARCHAR,
    n_files            BIGINT,
    scored_elsewhere   BOOLEAN
);
COMMENT ON TABLE runs IS 'One row per run directory: a benchmark/mode/split/model leaf, a raw multi-model run slug, or an _archive/<name> directory.';
COMMENT ON COLUMN runs.run_id IS 'Stable id: the logical path of the run directory relative to the root (symlinks not resolved), e.g. ehr_bench/agentic/full1800/claude_opus_4_6, _archive/<name>, or _archive/<name>/<model> for each model directory of an archive holding several runs. Two run directories linking to one real directory are two runs.';
COMMENT ON COLUMN runs.benchmark IS 'ehr_bench, agent_ehr_bench, mm_bench, or whatever new benchmark directory appears; NULL when unknown (archives the rules cannot read).';
COMMENT ON COLUMN runs.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN runs.split IS 'smoke20, full1800, subset600, full2703, ... as named by the directory.';
COMMENT ON COLUMN runs.model IS 'Canonical model key (see models / model_aliases).';
COMMENT ON COLUMN runs.is_archived IS 'True for runs under _archive/ (superseded, half-finished or early).';
COMMENT ON COLUMN runs.archive_name IS 'Directory name under _archive/, NULL for current runs.';
COMMENT ON COLUMN runs.path IS 'Logical path of the run directory relative to the root (same as run_id).';
COMMENT ON COLUMN runs.real_path IS 'Where the directory really is after resolving symlinks (may lie outside the root).';
COMMENT ON COLUMN runs.n_results IS 'Rows of results for this run after deduplication.';
COMMENT ON COLUMN runs.expected_questions IS 'Distinct questions (qids) the split should hold: 1800, 600, 2703 (the combined multimodal test set has one row per qid), 20, ...; NULL when the split does not say. See coverage.no_gold_questions for multimodal questions the authors'' scorer skips.';
COMMENT ON COLUMN runs.model_dir IS 'The model directory name exactly as found in the tree (for an archive: the model directory inside it, NULL when the archive is itself one run).';
COMMENT ON COLUMN runs.n_files IS 'Files of the tree attributed to this run.';
COMMENT ON COLUMN runs.scored_elsewhere IS 'True for a scored-only run, decided when the tree is walked: a <benchmark>/<mode>/scored/<model> directory with no run of its own (analysis/ingest_external_results.py stages external models that way). Its results were made and scored outside this tree: it has the authors'' per-question score rows and no results, trajectories or coverage of its own.';

CREATE TABLE files (
    file_id      VARCHAR PRIMARY KEY,
    run_id       VARCHAR,
    path         VARCHAR,
    real_path    VARCHAR,
    kind         VARCHAR,
    size_bytes   BIGINT,
    mtime_ns     BIGINT,
    sha256       VARCHAR,
    n_lines      BIGINT,
    n_rows       BIGINT,
    n_rejected   BIGINT,
    n_repaired   BIGINT,
    n_duplicates BIGINT,
    loaded       BOOLEAN,
    copy_rank    INTEGER,
    ingest_id    VARCHAR,
    -- append-only growth (etl/pipeline/segments.py): the unterminated last line of a results
    -- file that a writer may still be on is neither loaded nor rejected while the file keeps
    -- changing
    n_in_progress BIGINT
);
COMMENT ON TABLE files IS 'Every file seen in the tree, loaded or not, and what became of it.';
COMMENT ON COLUMN files.file_id IS 'Deterministic id: the first 16 hex digits of sha256 of the logical path.';
COMMENT ON COLUMN files.run_id IS 'Run the file belongs to (scored/<model> files belong to the full-split run of that model); NULL for files outside any run.';
COMMENT ON COLUMN files.path IS 'Logical path relative to the root (symlinks not resolved).';
COMMENT ON COLUMN files.real_path IS 'Resolved path (may lie outside the root when a symlink points there).';
COMMENT ON COLUMN files.kind IS 'File kind: results_merged, results_top, results_shard, results_steal, results_steal_copy, input, scored, rescored, per_question, summary, summary_vocab, scores_json, multi_summary, manifest, status, region_map, cmd, pid, run_log, mcp_log, markdown, text, other; outside_run for a result, score or summary file found outside any run directory (not loaded, a rejects row says so).';
COMMENT ON COLUMN files.size_bytes IS 'File size in bytes.';
COMMENT ON COLUMN files.mtime_ns IS 'Modification time (ns since epoch) when ingested; with size and sha256 it decides whether the file is parsed again.';
COMMENT ON COLUMN files.sha256 IS 'SHA-256 of the file contents (NULL for files that are never read).';
COMMENT ON COLUMN files.n_lines IS 'Lines in the file (JSONL and text kinds).';
COMMENT ON COLUMN files.n_rows IS 'Records or numbers extracted from the file (before deduplication).';
COMMENT ON COLUMN files.n_rejected IS 'Lines of this file in rejects with severity error.';
COMMENT ON COLUMN files.n_repaired IS 'Lines of this file in rejects with severity repaired (loaded after a repair).';
COMMENT ON COLUMN files.n_duplicates IS 'Records of this file not loaded because the same (run_id, qid, run_index) was loaded from a preferred copy (a higher-ranked file or a later line of this file); for score files, score rows not loaded because the same (run_id, scorer, qid, run_index) was loaded from a later line or another file.';
COMMENT ON COLUMN files.loaded IS 'True when the file kind is read into tables; false for pid files, MCP logs, markdown, plain text and other files only recorded here.';
COMMENT ON COLUMN files.copy_rank IS 'Preference among copies of a result: 1 merged_unique.jsonl, 2 top-level results.jsonl, 3 region shard, 4 results_steal_NN.jsonl, 5 steal_NN/results.jsonl; NULL for other kinds.';
COMMENT ON COLUMN files.ingest_id IS 'Ingest that last parsed this file.';
COMMENT ON COLUMN files.n_in_progress IS 'Unterminated last lines (0 or 1) held back as in progress: the results file changed less than the quiet period (etl ingest --in-progress-seconds) before the ingest, so its writer may still be writing the line. Not loaded and not in rejects; loaded once complete, or judged like any line (a truncated line is a reject) once the file is quiet. 0 when there is none; NULL for files that are not loaded.';

CREATE TABLE results (
    run_id            VARCHAR,
    benchmark         VARCHAR,
    mode              VARCHAR,
    split             VARCHAR,
    model             VARCHAR,
    task              VARCHAR,
    task_group        VARCHAR,
    qid               VARCHAR,
    run_index         INTEGER,
    status            VARCHAR,
    raw_status        VARCHAR,
    stop_reason       VARCHAR,
    completed         BOOLEAN,
    error             VARCHAR,
    label             VARCHAR,
    gold              VARCHAR,
    prediction        VARCHAR,
    prediction_items  VARCHAR,
    n_messages        INTEGER,
    n_tool_calls      INTEGER,
    n_images          INTEGER,
    subject_id        BIGINT,
    subject_id_text   VARCHAR,
    hadm_id           BIGINT,
    stay_id           BIGINT,
    prediction_time   TIMESTAMP,
    backend_model_id  VARCHAR,
    backend_region    VARCHAR,
    session_id        VARCHAR,
    runs_per_question INTEGER,
    task_type         VARCHAR,
    task_family       VARCHAR,
    scope             VARCHAR,
    source_benchmark  VARCHAR,
    question          VARCHAR,
    file_id           VARCHAR,
    line_no           BIGINT,
    rec_no            BIGINT,
    n_copies          INTEGER,
    -- score_text.py's per-run tool statistics, by the authors' rules (etl/scoring/text_runs.py)
    authors_tool_calls    INTEGER,
    authors_browser_calls INTEGER,
    authors_turns         INTEGER,
    -- what the writer (UCSC-VLAA/ClinSeekAgent) records that no column maps, and the
    -- writer-valid NaN values
    extra             VARCHAR,
    nonfinite_keys    VARCHAR,
    -- the kind of failure, decided at load from the raw error text (sql/load/error_kind.sql)
    -- so it survives --redact, which replaces the text itself
    error_kind        VARCHAR,
    label_source      VARCHAR,
    PRIMARY KEY (run_id, qid, run_index)
);
COMMENT ON TABLE results IS 'One row per (run_id, qid, run_index): the preferred copy of each per-question result record, whichever files of the run it appeared in.';
COMMENT ON COLUMN results.run_id IS 'Run the result belongs to (see runs).';
COMMENT ON COLUMN results.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN results.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN results.split IS 'Split of the run.';
COMMENT ON COLUMN results.model IS 'Canonical model key of the run.';
COMMENT ON COLUMN results.task IS 'Task name as in the record (e.g. ICU_Mortality_7day, labevents, ehrxqa_image).';
COMMENT ON COLUMN results.task_group IS 'risk_prediction or decision_making for text tasks; the task family (ehrxqa, medmod, ...) for multimodal ones.';
COMMENT ON COLUMN results.qid IS 'Question id as in the record.';
COMMENT ON COLUMN results.run_index IS '1-based run number of the question (records without one are run 1).';
COMMENT ON COLUMN results.status IS 'Normalized status: success, incomplete or error (one-shot ok -> success).';
COMMENT ON COLUMN results.raw_status IS 'Status exactly as written in the record.';
COMMENT ON COLUMN results.stop_reason IS 'Why the run stopped (finish_tool_call, no_final_answer, exception, ...).';
COMMENT ON COLUMN results.completed IS 'The record''s completed flag.';
COMMENT ON COLUMN results.error IS 'Error message of the run, NULL when none.';
COMMENT ON COLUMN results.label IS 'Gold label exactly as given, as JSON text.';
COMMENT ON COLUMN results.gold IS 'Gold as a JSON array of normalized strings (stripped, lower-cased; objects reduced to name or atc_name) used for scoring.';
COMMENT ON COLUMN results.prediction IS 'The response argument of the last finish tool call, as JSON text; NULL when there is none.';
COMMENT ON COLUMN results.prediction_items IS 'Prediction as a JSON array of normalized strings used for scoring (empty when missing or unparsable).';
COMMENT ON COLUMN results.n_messages IS 'Messages in the trajectory.';
COMMENT ON COLUMN results.n_tool_calls IS 'Tool calls made by the assistant over the trajectory.';
COMMENT ON COLUMN results.n_images IS 'Image blocks in the messages.';
COMMENT ON COLUMN results.subject_id IS 'Patient id as an integer (NULL when the record has a non-integer one; see subject_id_text).';
COMMENT ON COLUMN results.subject_id_text IS 'Patient id exactly as written when it is not an integer.';
COMMENT ON COLUMN results.hadm_id IS 'Hospital admission id, NULL when absent.';
COMMENT ON COLUMN results.stay_id IS 'ICU or ED stay id, NULL when absent.';
COMMENT ON COLUMN results.prediction_time IS 'Time the prediction is made at, from the record.';
COMMENT ON COLUMN results.backend_model_id IS 'Model id the backend reported (e.g. moonshotai.kimi-k2.5).';
COMMENT ON COLUMN results.backend_region IS 'Backend region the record was produced in.';
COMMENT ON COLUMN results.session_id IS 'Agent session id.';
COMMENT ON COLUMN results.runs_per_question IS 'Runs per question the evaluation was configured for.';
COMMENT ON COLUMN results.task_type IS 'task_type field of the record (risk_prediction / decision_making in ehr_bench).';
COMMENT ON COLUMN results.task_family IS 'task_family field of multimodal records.';
COMMENT ON COLUMN results.scope IS 'scope field of multimodal records.';
COMMENT ON COLUMN results.source_benchmark IS 'source_benchmark of multimodal records (ehrxqa, medmod).';
COMMENT ON COLUMN results.question IS 'Question text from the input row.';
COMMENT ON COLUMN results.file_id IS 'File the loaded copy came from (see files).';
COMMENT ON COLUMN results.line_no IS '1-based line of that file.';
COMMENT ON COLUMN results.rec_no IS '1-based record number within the file (differs from line_no after a line holding two objects).';
COMMENT ON COLUMN results.n_copies IS 'How many copies of this result the run''s files held (1 = no duplicates).';
COMMENT ON COLUMN results.authors_tool_calls IS 'Tool calls of the result as score_text.py count_tool_calls counts them: every tool_calls entry of every assistant message.';
COMMENT ON COLUMN results.authors_browser_calls IS 'Those whose function name, normalized by score_text.py normalize_tool_name, starts with browser. (browser_search counts too).';
COMMENT ON COLUMN results.authors_turns IS 'Assistant messages of the result (score_text.py count_turns).';
COMMENT ON COLUMN results.extra IS 'JSON object of the record''s top-level keys that no column maps (multimodal_summary, candidates, ground_truth, task_info, image_paths, ...), values as written; a messages value that is not a list is kept here too. NULL when there are none.';
COMMENT ON COLUMN results.nonfinite_keys IS 'JSON array of the paths (key, key.sub, key[3]) whose value was a bare NaN / Infinity / -Infinity, as Python''s json.dumps writes a float nan or inf: writer-valid, not damage; the value is stored as NULL. NULL when the line had none.';
COMMENT ON COLUMN results.error_kind IS 'none, throttling, ssl, timeout, connection, server (infrastructure), context_length, parse_error, no_final_answer (model) or other; from error, status and stop_reason at load (sql/load/error_kind.sql), before any redaction. The view result_error_class maps it to error_class.';
COMMENT ON COLUMN results.label_source IS 'Where the gold came from: label, ground_truth (raw QA rows of eval_ehrbench_qa.py keep it there, no label), or NULL when the record has neither (then nothing can be scored: coverage.no_gold_questions).';

CREATE TABLE messages (
    run_id        VARCHAR,
    qid           VARCHAR,
    run_index     INTEGER,
    msg_idx       INTEGER,
    role          VARCHAR,
    -- trajectory text: ZSTD always (DuckDB's own choice left whole row groups of it
    -- uncompressed, 3.5x the file); docs/PERFORMANCE.md "Database size"
    content       VARCHAR USING COMPRESSION zstd,
    reasoning     VARCHAR USING COMPRESSION zstd,
    n_tool_calls  INTEGER,
    name          VARCHAR,
    tool_call_id  VARCHAR,
    content_chars BIGINT,
    n_images      INTEGER,
    -- ZSTD always: it holds the thinking text of Anthropic messages (bedrock_content_blocks)
    extra         VARCHAR USING COMPRESSION zstd
);
COMMENT ON TABLE messages IS 'One row per message of each loaded result''s trajectory (child of results).';
COMMENT ON COLUMN messages.run_id IS 'Run of the parent result.';
COMMENT ON COLUMN messages.qid IS 'Question of the parent result.';
COMMENT ON COLUMN messages.run_index IS 'Run index of the parent result.';
COMMENT ON COLUMN messages.msg_idx IS '0-based position of the message in the trajectory.';
COMMENT ON COLUMN messages.role IS 'system, user, assistant or tool.';
COMMENT ON COLUMN messages.content IS 'Text content; the text blocks of a list content joined with newlines (image data never stored here).';
COMMENT ON COLUMN messages.reasoning IS 'reasoning_content of assistant messages.';
COMMENT ON COLUMN messages.n_tool_calls IS 'Tool calls in this assistant message.';
COMMENT ON COLUMN messages.name IS 'Tool name on tool messages, when given.';
COMMENT ON COLUMN messages.tool_call_id IS 'On tool messages: tool_call_id as written, the id of the call this message answers, or a fresh uuid matching no call in one writer branch (then the call is found by order, see tool_calls.paired_by).';
COMMENT ON COLUMN messages.content_chars IS 'Length of the text content in characters.';
COMMENT ON COLUMN messages.n_images IS 'Image blocks in the content.';
COMMENT ON COLUMN messages.extra IS 'JSON object of the message''s keys that no column maps (bedrock_content_blocks, raw_content, ...), plus under "$unread_blocks" the content blocks content does not hold ({block_idx, block}: unknown block types such as tool_result, non-object items, image blocks without data), and a tool_calls value that is not a list; NULL when nothing is left over.';

CREATE TABLE tool_calls (
    run_id          VARCHAR,
    qid             VARCHAR,
    run_index       INTEGER,
    msg_idx         INTEGER,
    call_idx        INTEGER,
    call_id         VARCHAR,
    tool            VARCHAR,
    raw_tool        VARCHAR,
    arguments       VARCHAR,
    arguments_valid BOOLEAN,
    result_chars    BIGINT,
    is_error        BOOLEAN,
    is_synthetic    BOOLEAN,
    -- what the writer records beyond the call itself: the tool the executor really ran, how
    -- the tool result was paired with its call, the call's keys no column maps
    name_fixed      BOOLEAN,
    paired_by       VARCHAR,
    result_msg_idx  INTEGER,
    call_type       VARCHAR,
    extra           VARCHAR
);
COMMENT ON TABLE tool_calls IS 'One row per tool call of each loaded result (child of messages).';
COMMENT ON COLUMN tool_calls.run_id IS 'Run of the parent result.';
COMMENT ON COLUMN tool_calls.qid IS 'Question of the parent result.';
COMMENT ON COLUMN tool_calls.run_index IS 'Run index of the parent result.';
COMMENT ON COLUMN tool_calls.msg_idx IS 'Assistant message holding the call.';
COMMENT ON COLUMN tool_calls.call_idx IS '0-based position of the call within its message.';
COMMENT ON COLUMN tool_calls.call_id IS 'The call id (synthetic_finish_<hex> for synthesized finish calls).';
COMMENT ON COLUMN tool_calls.tool IS 'The tool that ran: the name normalized to dotted form (ehr_load_ehr -> ehr.load_ehr), routed as the multimodal executor routes it (ehr.chest_xray_classifier -> image.chest_xray_classifier, see name_fixed).';
COMMENT ON COLUMN tool_calls.raw_tool IS 'Tool name exactly as written.';
COMMENT ON COLUMN tool_calls.arguments IS 'Arguments as text: the JSON string as written, or a dict serialized to JSON.';
COMMENT ON COLUMN tool_calls.arguments_valid IS 'True when the arguments parse as a JSON object.';
COMMENT ON COLUMN tool_calls.result_chars IS 'Length of the tool message answering this call (NULL when none answers it).';
COMMENT ON COLUMN tool_calls.is_error IS 'True when the answering tool message is one of the failure texts the writer writes (etl/normalize.py TOOL_ERROR_PREFIXES: Error executing, Error calling MCP tool / image tool, No data in SSE response, MCP Error, Tool Error:, HTTP Error, ...).';
COMMENT ON COLUMN tool_calls.is_synthetic IS 'True for finish calls synthesized by the harness (id synthetic_finish_<hex>).';
COMMENT ON COLUMN tool_calls.name_fixed IS 'True when the executor ran another tool than the recorded name says: the multimodal harness routes an image tool recorded under ehr. (Kimi: ehr.chest_xray_classifier) to image.<name> and logs TOOL_NAME_FIX without rewriting the record; tool holds what ran, raw_tool what was written.';
COMMENT ON COLUMN tool_calls.paired_by IS 'How the answering tool message was found: id (its tool_call_id is this call''s id), order (its tool_call_id matches no call, e.g. the fresh uuid one writer branch writes, so the oldest unanswered call before it, as the authors'' scorer pairs them), NULL when no tool message answers the call.';
COMMENT ON COLUMN tool_calls.result_msg_idx IS 'msg_idx of the tool message that answers this call (see paired_by); NULL when none.';
COMMENT ON COLUMN tool_calls.call_type IS 'The call''s type field as written (function for OpenAI-style calls).';
COMMENT ON COLUMN tool_calls.extra IS 'JSON object of the call''s keys (and its function object''s keys, prefixed function.) that no column maps; NULL when there are none.';

CREATE TABLE images (
    run_id      VARCHAR,
    qid         VARCHAR,
    run_index   INTEGER,
    msg_idx     INTEGER,
    block_idx   INTEGER,
    media_type  VARCHAR,
    data_sha256 VARCHAR,
    data_chars  BIGINT,
    data        VARCHAR USING COMPRESSION zstd  -- base64 (--keep-images): long text
);
COMMENT ON TABLE images IS 'One row per image block in a message (child of messages). The base64 data is kept only when ingesting with --keep-images.';
COMMENT ON COLUMN images.run_id IS 'Run of the parent result.';
COMMENT ON COLUMN images.qid IS 'Question of the parent result.';
COMMENT ON COLUMN images.run_index IS 'Run index of the parent result.';
COMMENT ON COLUMN images.msg_idx IS 'Message holding the image.';
COMMENT ON COLUMN images.block_idx IS '0-based position of the block in the message content.';
COMMENT ON COLUMN images.media_type IS 'MIME type, e.g. image/jpeg.';
COMMENT ON COLUMN images.data_sha256 IS 'SHA-256 of the base64 text, to recognise the same image across runs.';
COMMENT ON COLUMN images.data_chars IS 'Length of the base64 text.';
COMMENT ON COLUMN images.data IS 'The base64 text itself, NULL unless --keep-images.';

CREATE TABLE rejects (
    file_id   VARCHAR,
    path      VARCHAR,
    line_no   BIGINT,
    severity  VARCHAR,
    error     VARCHAR,
    excerpt   VARCHAR,
    ingest_id VARCHAR
);
COMMENT ON TABLE rejects IS 'Every line or file that could not be loaded as is: severity error (nothing loaded), repaired (loaded after a repair that needs no guessing) or skipped (a directory not walked: hidden, or a Python virtual environment).';
COMMENT ON COLUMN rejects.file_id IS 'File of the line (NULL for a path that is not a readable file, e.g. a dangling symlink).';
COMMENT ON COLUMN rejects.path IS 'Logical path relative to the root.';
COMMENT ON COLUMN rejects.line_no IS '1-based line number; NULL when the whole file or path is concerned.';
COMMENT ON COLUMN rejects.severity IS 'error (not loaded), repaired (loaded; the repair is named in error) or skipped (a hidden or virtual-environment directory, not walked).';
COMMENT ON COLUMN rejects.error IS 'What is wrong, in words.';
COMMENT ON COLUMN rejects.excerpt IS 'The first 200 characters of the line.';
COMMENT ON COLUMN rejects.ingest_id IS 'Ingest that found it.';

-- Which questions each shard was given, as the writer records it before the agent starts.
CREATE TABLE shard_inputs (
    run_id  VARCHAR,
    file_id VARCHAR,
    region  VARCHAR,
    qid     VARCHAR,
    line_no BIGINT,
    task    VARCHAR
);
COMMENT ON TABLE shard_inputs IS 'The questions each shard of a multi-region run was given: one row per line of <region>/input.jsonl (or input_steal_NN.jsonl), written by run_multi_model_eval.py build_shards / try_steal_work before the agent starts. Coverage compares them with the results to find questions assigned but never answered.';
COMMENT ON COLUMN shard_inputs.run_id IS 'Run the shard belongs to (see runs).';
COMMENT ON COLUMN shard_inputs.file_id IS 'The input file (see files).';
COMMENT ON COLUMN shard_inputs.region IS 'Region directory of the shard (us-east-1, ...); NULL when the file is not in a region directory.';
COMMENT ON COLUMN shard_inputs.qid IS 'Question id of the input row (qid, else query_id as deploy_agent.py resolve_qid reads it).';
COMMENT ON COLUMN shard_inputs.line_no IS '1-based line of the input file.';
COMMENT ON COLUMN shard_inputs.task IS 'task field of the input row.';
