-- The steps of the trajectories of question $qid in runs $run_a and $run_b (every attempt,
-- one scan per table) for the side-by-side page: their tool calls in order, each with its
-- arguments (cut to 2,000 characters; arguments_chars is the whole length), the length of
-- its result, whether the result is an error, the message that holds the result (the first
-- tool message after the call with its call id, as the trajectory page pairs them) and, for
-- an error, the first 300 characters of it.
WITH c AS MATERIALIZED (
    SELECT run_id, run_index, msg_idx, call_idx, call_id, tool,
           substr(arguments, 1, 2000) AS arguments, length(arguments) AS arguments_chars,
           arguments_valid, result_chars, is_error, is_synthetic
    FROM tool_calls
    WHERE run_id BETWEEN least($run_a, $run_b) AND greatest($run_a, $run_b)
        AND run_id IN ($run_a, $run_b) AND qid = $qid
),
m AS MATERIALIZED (
    SELECT run_id, run_index, msg_idx, tool_call_id, substr(content, 1, 300) AS head
    FROM messages
    WHERE run_id BETWEEN least($run_a, $run_b) AND greatest($run_a, $run_b)
        AND run_id IN ($run_a, $run_b) AND qid = $qid AND role = 'tool'
),
answered AS (
    SELECT c.run_id, c.run_index, c.msg_idx, c.call_idx, min(m.msg_idx) AS result_msg_idx
    FROM c
    JOIN m ON m.run_id = c.run_id AND m.run_index = c.run_index
        AND m.tool_call_id = c.call_id AND m.msg_idx > c.msg_idx
    GROUP BY c.run_id, c.run_index, c.msg_idx, c.call_idx
)
SELECT
    c.run_id, c.run_index, c.msg_idx, c.call_idx, c.tool, c.arguments, c.arguments_chars,
    c.arguments_valid, c.result_chars, c.is_error, c.is_synthetic, a.result_msg_idx,
    CASE WHEN c.is_error THEN r.head END AS error_head
FROM c
LEFT JOIN answered AS a ON a.run_id = c.run_id AND a.run_index = c.run_index
    AND a.msg_idx = c.msg_idx AND a.call_idx = c.call_idx
LEFT JOIN m AS r ON r.run_id = c.run_id AND r.run_index = c.run_index
    AND r.msg_idx = a.result_msg_idx
ORDER BY c.run_id, c.run_index, c.msg_idx, c.call_idx
