-- Warehouse.trajectory(): one row per message of question $qid of run $run (every attempt,
-- or attempt $run_index alone), whole: role, content, reasoning; for an assistant message the
-- tool calls it made (tool_calls: a list in call order, each with its tool, its arguments and
-- whether they parse, the result the tool returned (the content of the tool message that
-- answers it, tool_calls.result_msg_idx) and whether the call failed); for a tool message
-- the call it answers (answers_tool, answers_msg_idx, answers_call_idx) and is_error.
WITH m AS (
    SELECT *
    FROM messages
    WHERE run_id = $run AND qid = $qid AND ($run_index IS NULL OR run_index = $run_index)
),
c AS (
    SELECT *
    FROM tool_calls
    WHERE run_id = $run AND qid = $qid AND ($run_index IS NULL OR run_index = $run_index)
),
calls AS (
    SELECT
        c.run_index,
        c.msg_idx,
        list({
            'call_idx': c.call_idx, 'call_id': c.call_id, 'tool': c.tool,
            'raw_tool': c.raw_tool, 'arguments': c.arguments,
            'arguments_valid': c.arguments_valid, 'result_msg_idx': c.result_msg_idx,
            'result': r.content, 'result_chars': c.result_chars, 'is_error': c.is_error,
            'is_synthetic': c.is_synthetic
        } ORDER BY c.call_idx) AS tool_calls
    FROM c
    LEFT JOIN m AS r ON r.run_index = c.run_index AND r.msg_idx = c.result_msg_idx
    GROUP BY c.run_index, c.msg_idx
),
answers AS (
    SELECT run_index, result_msg_idx AS msg_idx, tool, msg_idx AS call_msg_idx, call_idx,
           is_error
    FROM c
    WHERE result_msg_idx IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY run_index, result_msg_idx
                               ORDER BY msg_idx DESC, call_idx DESC) = 1
)
SELECT
    m.run_id, m.qid, m.run_index, m.msg_idx, m.role, m.name, m.content, m.reasoning,
    m.content_chars, m.n_images, m.tool_call_id,
    coalesce(k.tool_calls, []) AS tool_calls,
    a.tool AS answers_tool,
    a.call_msg_idx AS answers_msg_idx,
    a.call_idx AS answers_call_idx,
    a.is_error
FROM m
LEFT JOIN calls AS k ON k.run_index = m.run_index AND k.msg_idx = m.msg_idx
LEFT JOIN answers AS a ON a.run_index = m.run_index AND a.msg_idx = m.msg_idx
ORDER BY m.run_index, m.msg_idx
