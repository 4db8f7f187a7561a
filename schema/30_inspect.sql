-- Inspect AI logs (*.eval, *.json) beside or instead of the ClinSeek tree: each log is a run
-- of its own (runs.run_id = the log's logical path), its samples rows of results, messages,
-- tool_calls and question_scores like any run's (etl/extract/inspect_logs.py; the mapping,
-- field by field, is docs/FORMATS.md "Inspect AI logs"). These tables hold what a log says
-- beyond them: its header, its scorers, and the tokens its samples used.

CREATE TABLE inspect_logs (
    file_id         VARCHAR,
    run_id          VARCHAR,
    task            VARCHAR,
    task_id         VARCHAR,
    eval_id         VARCHAR,
    eval_run_id     VARCHAR,
    created         VARCHAR,
    inspect_model   VARCHAR,
    model           VARCHAR,
    benchmark       VARCHAR,
    split           VARCHAR,
    n_samples       INTEGER,
    epochs          INTEGER,
    status          VARCHAR,
    log_version     INTEGER,
    inspect_version VARCHAR,
    tools_in_plan   BOOLEAN,
    n_read          INTEGER,
    n_reused        INTEGER,
    error           VARCHAR,
    extra           VARCHAR
);
COMMENT ON TABLE inspect_logs IS 'One row per Inspect AI log loaded: what its header says (task, model, dataset, epochs, status), the run keys the warehouse gave it (runs.benchmark, split, model; runs.mode is agentic when any sample was offered tools) and how its last parse went (samples read, samples kept from the previous parse of a grown log).';
COMMENT ON COLUMN inspect_logs.file_id IS 'The log file (see files).';
COMMENT ON COLUMN inspect_logs.run_id IS 'The run the log is: its logical path relative to the root (see runs).';
COMMENT ON COLUMN inspect_logs.task IS 'eval.task: the Inspect task name as written.';
COMMENT ON COLUMN inspect_logs.task_id IS 'eval.task_id.';
COMMENT ON COLUMN inspect_logs.eval_id IS 'eval.eval_id: the id of this evaluation.';
COMMENT ON COLUMN inspect_logs.eval_run_id IS 'eval.run_id: the id Inspect gives the eval() call (shared by the logs of one eval set run).';
COMMENT ON COLUMN inspect_logs.created IS 'eval.created: when the evaluation started (ISO 8601 as written).';
COMMENT ON COLUMN inspect_logs.inspect_model IS 'eval.model as written: <provider>/<model>, e.g. anthropic/claude-opus-4-6.';
COMMENT ON COLUMN inspect_logs.model IS 'Canonical model key (runs.model): the model name without its provider, resolved through model_aliases.';
COMMENT ON COLUMN inspect_logs.benchmark IS 'Benchmark of the run (runs.benchmark): the task name, or the benchmark etl ingest --inspect-benchmark TASK=BENCHMARK maps it to.';
COMMENT ON COLUMN inspect_logs.split IS 'Split of the run (runs.split): full<n> for n samples when the whole dataset was evaluated (on the leaderboard, like any full split), limit<n> when eval.config.limit or sample_id chose some (not on the leaderboard, like a smoke split).';
COMMENT ON COLUMN inspect_logs.n_samples IS 'Samples the evaluation was given (eval.dataset.sample_ids), each run epochs times: runs.expected_questions.';
COMMENT ON COLUMN inspect_logs.epochs IS 'eval.config.epochs: runs per sample (results.run_index is the epoch).';
COMMENT ON COLUMN inspect_logs.status IS 'Log status: started (still running, or killed), success, cancelled or error.';
COMMENT ON COLUMN inspect_logs.log_version IS 'Log format version the file was written in.';
COMMENT ON COLUMN inspect_logs.inspect_version IS 'Version of Inspect AI that wrote the log (eval.packages).';
COMMENT ON COLUMN inspect_logs.tools_in_plan IS 'True when a step of the solver plan was given tools (use_tools, an agent); runs.mode reads the samples instead (agentic when any model call of any sample was offered tools).';
COMMENT ON COLUMN inspect_logs.n_read IS 'Samples this parse read from the log.';
COMMENT ON COLUMN inspect_logs.n_reused IS 'Samples whose rows were kept from the previous parse of this log because the log only grew (their entries unchanged): parsed once, not again.';
COMMENT ON COLUMN inspect_logs.error IS 'The evaluation''s error message when it failed (status error), else NULL.';
COMMENT ON COLUMN inspect_logs.extra IS 'JSON of header fields no column maps: task arguments, dataset name and location, generate config, tags, metadata.';

CREATE TABLE inspect_scorers (
    file_id          VARCHAR,
    run_id           VARCHAR,
    scorer           VARCHAR,
    inspect_scorer   VARCHAR,
    position         INTEGER,
    is_default       BOOLEAN,
    reducer          VARCHAR,
    scored_samples   INTEGER,
    unscored_samples INTEGER,
    metrics          VARCHAR
);
COMMENT ON TABLE inspect_scorers IS 'The scorers of each Inspect log, in the log''s order: each makes question_scores rows of its own name, and the log''s headline scorer (results.headline, else the first) is the default scorer of its run''s boards (leaderboard_runs), the others shown beside it (leaderboard_scorers). Their metrics as Inspect reported them are in summary_metrics (scoring inspect_results).';
COMMENT ON COLUMN inspect_scorers.file_id IS 'The log file.';
COMMENT ON COLUMN inspect_scorers.run_id IS 'The log''s run.';
COMMENT ON COLUMN inspect_scorers.scorer IS 'question_scores.scorer of its rows: the Inspect score name as written, or inspect_<name> when that name is one the warehouse''s own scorers use (scorers).';
COMMENT ON COLUMN inspect_scorers.inspect_scorer IS 'The score name as the log writes it (a key of each sample''s scores).';
COMMENT ON COLUMN inspect_scorers.position IS '1-based position among the log''s scores.';
COMMENT ON COLUMN inspect_scorers.is_default IS 'True for the log''s headline scorer: the default scorer of its run.';
COMMENT ON COLUMN inspect_scorers.reducer IS 'The epoch reducer Inspect applied before its metrics (mean by default); the boards always take the mean over a question''s runs.';
COMMENT ON COLUMN inspect_scorers.scored_samples IS 'Samples Inspect scored with it (results.scores).';
COMMENT ON COLUMN inspect_scorers.unscored_samples IS 'Samples Inspect left unscored (no value): on the boards they count 0, as every unscored result does.';
COMMENT ON COLUMN inspect_scorers.metrics IS 'JSON of the metrics Inspect computed with it ({name: value}); the same numbers are rows of summary_metrics.';

CREATE TABLE token_usage (
    file_id                  VARCHAR,
    run_id                   VARCHAR,
    qid                      VARCHAR,
    run_index                INTEGER,
    scope                    VARCHAR,
    msg_idx                  INTEGER,
    model                    VARCHAR,
    input_tokens             BIGINT,
    output_tokens            BIGINT,
    total_tokens             BIGINT,
    input_tokens_cache_read  BIGINT,
    input_tokens_cache_write BIGINT,
    reasoning_tokens         BIGINT,
    total_cost               DOUBLE
);
COMMENT ON TABLE token_usage IS 'Tokens used, where a log or record counts them (Inspect AI logs; the raw QA rows of eval_ehrbench_qa.py, whose usage is one sample row per result; the agent runners'' records count none): per result and model (scope sample: the sample''s model_usage), and per model call (scope message: the call that wrote assistant message msg_idx; scope call: a call whose message is not in the trajectory, e.g. of a sub-agent). The usage views (usage_per_run) read scope sample.';
COMMENT ON COLUMN token_usage.file_id IS 'File the usage came from.';
COMMENT ON COLUMN token_usage.run_id IS 'Run of the result.';
COMMENT ON COLUMN token_usage.qid IS 'Question (sample id) of the result.';
COMMENT ON COLUMN token_usage.run_index IS 'Run index (epoch) of the result.';
COMMENT ON COLUMN token_usage.scope IS 'sample (all calls of the result to one model), message (the call that produced assistant message msg_idx) or call (a model call whose output is not a message of the trajectory).';
COMMENT ON COLUMN token_usage.msg_idx IS 'For scope message: the assistant message the call produced (messages.msg_idx); NULL otherwise.';
COMMENT ON COLUMN token_usage.model IS 'The model as the log names it (<provider>/<model>).';
COMMENT ON COLUMN token_usage.input_tokens IS 'Input (prompt) tokens.';
COMMENT ON COLUMN token_usage.output_tokens IS 'Output (completion) tokens.';
COMMENT ON COLUMN token_usage.total_tokens IS 'Total tokens as the log reports them.';
COMMENT ON COLUMN token_usage.input_tokens_cache_read IS 'Input tokens read from the provider''s prompt cache; NULL when not reported.';
COMMENT ON COLUMN token_usage.input_tokens_cache_write IS 'Input tokens written to the provider''s prompt cache; NULL when not reported.';
COMMENT ON COLUMN token_usage.reasoning_tokens IS 'Reasoning tokens; NULL when not reported.';
COMMENT ON COLUMN token_usage.total_cost IS 'Cost as the log reports it (Inspect''s model cost table); NULL when not reported.';
