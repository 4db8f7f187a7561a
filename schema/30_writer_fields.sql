-- Columns and tables for what the writer (UCSC-VLAA/ClinSeekAgent) records that the core
-- tables did not keep (issue 11): how a tool result was paired with its call, the tool the
-- executor really ran, writer-valid NaN values, the record fields no column maps, and
-- which questions each shard was given.

ALTER TABLE tool_calls ADD COLUMN name_fixed BOOLEAN;
ALTER TABLE tool_calls ADD COLUMN paired_by VARCHAR;
ALTER TABLE tool_calls ADD COLUMN result_msg_idx INTEGER;
ALTER TABLE tool_calls ADD COLUMN call_type VARCHAR;
ALTER TABLE tool_calls ADD COLUMN extra VARCHAR;
COMMENT ON COLUMN tool_calls.name_fixed IS 'True when the executor ran another tool than the recorded name says: the multimodal harness routes an image tool recorded under ehr. (Kimi: ehr.chest_xray_classifier) to image.<name> and logs TOOL_NAME_FIX without rewriting the record; tool holds what ran, raw_tool what was written.';
COMMENT ON COLUMN tool_calls.paired_by IS 'How the answering tool message was found: id (its tool_call_id is this call''s id), order (its tool_call_id matches no call, e.g. the fresh uuid one writer branch writes, so the oldest unanswered call before it, as the authors'' scorer pairs them), NULL when no tool message answers the call.';
COMMENT ON COLUMN tool_calls.result_msg_idx IS 'msg_idx of the tool message that answers this call (see paired_by); NULL when none.';
COMMENT ON COLUMN tool_calls.call_type IS 'The call''s type field as written (function for OpenAI-style calls).';
COMMENT ON COLUMN tool_calls.extra IS 'JSON object of the call''s keys (and its function object''s keys, prefixed function.) that no column maps; NULL when there are none.';

-- ZSTD always: it holds the thinking text of Anthropic messages (bedrock_content_blocks)
ALTER TABLE messages ADD COLUMN extra VARCHAR USING COMPRESSION zstd;
COMMENT ON COLUMN messages.extra IS 'JSON object of the message''s keys that no column maps (bedrock_content_blocks, raw_content, ...), plus under "$unread_blocks" the content blocks content does not hold ({block_idx, block}: unknown block types such as tool_result, non-object items, image blocks without data), and a tool_calls value that is not a list; NULL when nothing is left over.';

ALTER TABLE results ADD COLUMN extra VARCHAR;
ALTER TABLE results ADD COLUMN nonfinite_keys VARCHAR;
COMMENT ON COLUMN results.extra IS 'JSON object of the record''s top-level keys that no column maps (multimodal_summary, candidates, ground_truth, task_info, image_paths, ...), values as written; a messages value that is not a list is kept here too. NULL when there are none.';
COMMENT ON COLUMN results.nonfinite_keys IS 'JSON array of the paths (key, key.sub, key[3]) whose value was a bare NaN / Infinity / -Infinity, as Python''s json.dumps writes a float nan or inf: writer-valid, not damage; the value is stored as NULL. NULL when the line had none.';

ALTER TABLE question_scores ADD COLUMN extra VARCHAR;
COMMENT ON COLUMN question_scores.extra IS 'For rows read from scored / rescored / per-question files: JSON object of the row''s keys that no column maps (judge_reason, prediction_strs_mapped, mapping_similarity, ...); NULL when there are none or for rows the project computes.';

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

ALTER TABLE run_log_stats ADD COLUMN steal_run INTEGER;
COMMENT ON COLUMN run_log_stats.steal_run IS 'NN of a work-stealing helper''s log run_steal_NN.log (run_multi_model_eval.py try_steal_work); NULL for run.log. The authors'' aggregate() adds both kinds of log of a shard together (salvage, name_fix).';
