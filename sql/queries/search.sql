-- Phrase search over what was said in the trajectories: message content (tool results are
-- the content of tool messages), reasoning, and tool-call arguments. No index: a scan of
-- messages (content and reasoning together) or of tool_calls reads and matches the text as
-- it streams, and stops once $limit + $offset matches are found (docs/SERVE.md, "Search",
-- has the measurements behind that choice). One part per run of the query, so that the
-- caller can scan parts at once (etl/search.py): $part 'messages' with the rows
-- $lo <= rowid < $hi of messages, or 'arguments'. Parameters, all bound:
--   $runs     the run ids to look in (search_runs.sql)
--   $task, $role  NULL, or a task / a message role (arguments count as the assistant's)
--   $case     true: $phrase as typed (contains); false: $pattern, the phrase as an RE2
--             literal after (?i): case-insensitive, Unicode case folding
--   $prefix_pattern  (?s)^(.*?)(phrase): group 1 is the text before the first match
-- Matches come in storage order (run by run as loaded); a message whose content and
-- reasoning both match is listed once, for its content. Each
-- row: where the match is, the position of its first match in characters (match_at), the
-- matched text and up to $context characters either side.
WITH scope AS (
    SELECT unnest($runs) AS run_id
),
hits AS (
    SELECT m.run_id, m.qid, m.run_index, m.msg_idx, CAST(NULL AS INTEGER) AS call_idx,
           m.role,
           CASE WHEN ($case AND contains(m.content, $phrase))
                     OR (NOT $case AND regexp_matches(m.content, $pattern))
                THEN 'content' ELSE 'reasoning' END AS field,
           CASE WHEN field = 'content' THEN m.content ELSE m.reasoning END AS text
    FROM messages AS m
    WHERE $part = 'messages' AND m.rowid >= $lo AND m.rowid < $hi
        AND m.run_id IN (SELECT run_id FROM scope)
        AND ($role IS NULL OR m.role = $role)
        AND ($task IS NULL OR EXISTS (
            SELECT 1 FROM results AS r
            WHERE r.run_id = m.run_id AND r.qid = m.qid AND r.run_index = m.run_index
                AND r.task = $task))
        AND (($case AND (contains(m.content, $phrase) OR contains(m.reasoning, $phrase)))
             OR (NOT $case AND (regexp_matches(m.content, $pattern)
                                OR regexp_matches(m.reasoning, $pattern))))
    UNION ALL
    SELECT c.run_id, c.qid, c.run_index, c.msg_idx, c.call_idx, 'assistant', 'arguments',
           c.arguments
    FROM tool_calls AS c
    WHERE $part = 'arguments' AND c.run_id IN (SELECT run_id FROM scope)
        AND ($role IS NULL OR $role = 'assistant')
        AND ($task IS NULL OR EXISTS (
            SELECT 1 FROM results AS r
            WHERE r.run_id = c.run_id AND r.qid = c.qid AND r.run_index = c.run_index
                AND r.task = $task))
        AND (($case AND contains(c.arguments, $phrase))
             OR (NOT $case AND regexp_matches(c.arguments, $pattern)))
),
page AS (
    -- numbered after the LIMIT, so only the page is numbered and the scan can stop early
    SELECT *, row_number() OVER () AS hit_no
    FROM (SELECT * FROM hits LIMIT $limit OFFSET $offset)
)
SELECT
    r.benchmark, r.mode, r.model, r.task,
    p.run_id, p.qid, p.run_index, p.msg_idx, p.call_idx, p.role, p.field,
    length(p.text) AS text_chars,
    length(regexp_extract(p.text, $prefix_pattern, 1)) AS match_at,
    regexp_extract(p.text, $prefix_pattern, 2) AS matched,
    substring(p.text, greatest(1, match_at + 1 - $context), least(match_at, $context))
        AS before,
    substring(p.text, match_at + length(matched) + 1, $context) AS after
FROM page AS p
JOIN results AS r ON r.run_id = p.run_id AND r.qid = p.qid AND r.run_index = p.run_index
ORDER BY p.hit_no
