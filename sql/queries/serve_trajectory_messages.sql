-- The messages of one trajectory ($run, $qid, $run_index), each cut to its first $chars
-- characters of content and of reasoning (content_chars / reasoning_chars give the full
-- length; the rest is read a page at a time by serve_message_page), so a record with
-- 100k-character tool results is never loaded whole. For a tool message, the tool call it
-- answers (matched by call id) and whether that call failed.
SELECT
    m.msg_idx, m.role, m.name, m.tool_call_id,
    substr(m.content, 1, $chars) AS content,
    coalesce(m.content_chars, length(m.content)) AS content_chars,
    substr(m.reasoning, 1, $chars) AS reasoning,
    length(m.reasoning) AS reasoning_chars,
    m.n_tool_calls, m.n_images,
    c.tool AS answers_tool, c.is_error AS answers_error,
    c.msg_idx AS answers_msg_idx, c.call_idx AS answers_call_idx
FROM messages AS m
LEFT JOIN tool_calls AS c
    ON c.run_id = m.run_id AND c.qid = m.qid AND c.run_index = m.run_index
    AND m.role = 'tool' AND c.call_id = m.tool_call_id
WHERE m.run_id = $run AND m.qid = $qid AND m.run_index = $run_index
QUALIFY row_number() OVER (PARTITION BY m.msg_idx ORDER BY c.msg_idx DESC NULLS LAST) = 1
ORDER BY m.msg_idx
