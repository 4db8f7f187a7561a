-- One page of one message's content or reasoning ($run, $qid, $run_index, $msg_idx): the
-- $chars characters from $start (1-based), and the full length, so a 100k-character tool
-- result is read a page at a time.
SELECT
    msg_idx, role, name, tool_call_id,
    substr(CASE WHEN $field = 'reasoning' THEN reasoning ELSE content END, $start, $chars)
        AS text,
    length(CASE WHEN $field = 'reasoning' THEN reasoning ELSE content END) AS text_chars
FROM messages
WHERE run_id = $run AND qid = $qid AND run_index = $run_index AND msg_idx = $msg_idx
