-- The messages of one trajectory ($run, $qid, $run_index), each cut to its first $chars
-- characters of content and of reasoning (content_chars / reasoning_chars give the full
-- length; the rest is read a page at a time by serve_message_page), so a record with
-- 100k-character tool results is never loaded whole. For a tool message, the tool call it
-- answers (the last call with its call id) and whether that call failed; for an assistant
-- message, its tool calls (calls: arguments cut to $chars characters, in call order), each
-- with the message that holds its result (the first tool message after it with its call id).
-- One query, so that messages and tool_calls are each read once per page.
WITH m AS MATERIALIZED (
    SELECT
        msg_idx, role, name, tool_call_id,
        substr(content, 1, $chars) AS content,
        coalesce(content_chars, length(content)) AS content_chars,
        substr(reasoning, 1, $chars) AS reasoning,
        length(reasoning) AS reasoning_chars,
        n_tool_calls, n_images
    FROM messages
    WHERE run_id = $run AND qid = $qid AND run_index = $run_index
),
c AS MATERIALIZED (
    SELECT
        msg_idx, call_idx, call_id, tool, raw_tool,
        substr(arguments, 1, $chars) AS arguments, length(arguments) AS arguments_chars,
        arguments_valid, result_chars, is_error, is_synthetic
    FROM tool_calls
    WHERE run_id = $run AND qid = $qid AND run_index = $run_index
),
answers AS (
    SELECT
        m.msg_idx, c.tool AS answers_tool, c.is_error AS answers_error,
        c.msg_idx AS answers_msg_idx, c.call_idx AS answers_call_idx
    FROM m
    JOIN c ON m.role = 'tool' AND c.call_id = m.tool_call_id
    QUALIFY row_number() OVER (PARTITION BY m.msg_idx ORDER BY c.msg_idx DESC) = 1
),
results AS (
    SELECT c.msg_idx, c.call_idx, min(m.msg_idx) AS result_msg_idx
    FROM c
    JOIN m ON m.role = 'tool' AND m.tool_call_id = c.call_id AND m.msg_idx > c.msg_idx
    GROUP BY c.msg_idx, c.call_idx
),
calls AS (
    SELECT
        c.msg_idx,
        list({
            'msg_idx': c.msg_idx, 'call_idx': c.call_idx, 'call_id': c.call_id,
            'tool': c.tool, 'raw_tool': c.raw_tool, 'arguments': c.arguments,
            'arguments_chars': c.arguments_chars, 'arguments_valid': c.arguments_valid,
            'result_chars': c.result_chars, 'is_error': c.is_error,
            'is_synthetic': c.is_synthetic, 'result_msg_idx': r.result_msg_idx
        } ORDER BY c.call_idx) AS calls
    FROM c
    LEFT JOIN results AS r ON r.msg_idx = c.msg_idx AND r.call_idx = c.call_idx
    GROUP BY c.msg_idx
)
SELECT
    m.msg_idx, m.role, m.name, m.tool_call_id, m.content, m.content_chars, m.reasoning,
    m.reasoning_chars, m.n_tool_calls, m.n_images,
    a.answers_tool, a.answers_error, a.answers_msg_idx, a.answers_call_idx,
    coalesce(k.calls, []) AS calls
FROM m
LEFT JOIN answers AS a ON a.msg_idx = m.msg_idx
LEFT JOIN calls AS k ON k.msg_idx = m.msg_idx
ORDER BY m.msg_idx
