-- The tool calls of one trajectory ($run, $qid, $run_index), arguments cut to $chars
-- characters, with the message that holds each call's result (matched by call id).
SELECT
    c.msg_idx, c.call_idx, c.call_id, c.tool, c.raw_tool,
    substr(c.arguments, 1, $chars) AS arguments, length(c.arguments) AS arguments_chars,
    c.arguments_valid, c.result_chars, c.is_error, c.is_synthetic,
    min(m.msg_idx) AS result_msg_idx
FROM tool_calls AS c
LEFT JOIN messages AS m
    ON m.run_id = c.run_id AND m.qid = c.qid AND m.run_index = c.run_index
    AND m.role = 'tool' AND m.tool_call_id = c.call_id AND m.msg_idx > c.msg_idx
WHERE c.run_id = $run AND c.qid = $qid AND c.run_index = $run_index
GROUP BY ALL
ORDER BY c.msg_idx, c.call_idx
