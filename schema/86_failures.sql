-- Failure labels: why a tool call or a result went wrong (etl/failures/, docs/ANALYSIS.md).
-- call_failures and result_checks are children of results, made when a file is parsed
-- (etl/failures/rows.py) from the raw texts, so they survive --redact; failures and
-- failure_texts are written by every build from the registry (etl/failures/registry.py,
-- etl/views.py write_rule_tables) before the views read them.

CREATE TABLE call_failures (
    run_id    VARCHAR,
    qid       VARCHAR,
    run_index INTEGER,
    msg_idx   INTEGER,
    call_idx  INTEGER,
    tool      VARCHAR,
    failure   VARCHAR,
    detail    VARCHAR
);
COMMENT ON TABLE call_failures IS 'One row per tool call and failure label it carries (child of tool_calls): arguments that do not parse or lack what the tool needs, a tool the benchmark lacks, an error the tool returned, an empty or truncated result, an infrastructure failure. Decided when the file is parsed from the call and the text of the tool message answering it (etl/failures/rules.py, the writer''s texts in etl/failures/texts.py). A call may carry several labels; a clean call has no row.';
COMMENT ON COLUMN call_failures.run_id IS 'Run of the parent result.';
COMMENT ON COLUMN call_failures.qid IS 'Question of the parent result.';
COMMENT ON COLUMN call_failures.run_index IS 'Run index of the parent result.';
COMMENT ON COLUMN call_failures.msg_idx IS 'Assistant message holding the call (tool_calls.msg_idx).';
COMMENT ON COLUMN call_failures.call_idx IS 'Position of the call within its message (tool_calls.call_idx).';
COMMENT ON COLUMN call_failures.tool IS 'The tool that ran (tool_calls.tool).';
COMMENT ON COLUMN call_failures.failure IS 'The label (table failures): invalid_arguments, unknown_tool, tool_error, empty_result, truncated_result or infrastructure.';
COMMENT ON COLUMN call_failures.detail IS 'Which kind, in a word: for tool_error sql_syntax, sql_unknown_table, sql_unknown_column, unknown_table, unknown_column, image_tool_failed, ehr_not_loaded, ...; for infrastructure timeout, connection, mcp_session, http_error, ...; for invalid_arguments unparseable_arguments, missing_argument, rejected_arguments (table failure_texts lists the writer''s texts of each).';

CREATE TABLE result_checks (
    run_id    VARCHAR,
    qid       VARCHAR,
    run_index INTEGER,
    failure   VARCHAR,
    detail    VARCHAR,
    n_calls   INTEGER
);
COMMENT ON TABLE result_checks IS 'One row per result and failure label decided from the whole trajectory when the file is parsed (child of results; etl/failures/rules.py): repeated_call, no_final_answer, empty_answer, answer_outside_candidates. View result_failures adds the labels of the calls, the run''s own errors and none.';
COMMENT ON COLUMN result_checks.run_id IS 'Run of the result.';
COMMENT ON COLUMN result_checks.qid IS 'Question of the result.';
COMMENT ON COLUMN result_checks.run_index IS 'Run index of the result.';
COMMENT ON COLUMN result_checks.failure IS 'The label (table failures).';
COMMENT ON COLUMN result_checks.detail IS 'Which kind: for repeated_call the tool repeated most; for no_final_answer no_finish_call or unreadable_finish; for answer_outside_candidates how many items fall outside.';
COMMENT ON COLUMN result_checks.n_calls IS 'For repeated_call the calls that repeat an earlier one; 0 for the other labels.';

CREATE TABLE failures (
    failure     VARCHAR,
    position    INTEGER,
    title       VARCHAR,
    description VARCHAR,
    example     VARCHAR,
    levels      VARCHAR,
    decided     VARCHAR,
    per_call    BOOLEAN,
    is_error    BOOLEAN
);
COMMENT ON TABLE failures IS 'One row per failure label, from the registry etl/failures/registry.py: what it means in words (the glossary the explorer, the report and etl failures show), an example, and where it is decided.';
COMMENT ON COLUMN failures.failure IS 'Label name, as in call_failures.failure and result_failures.failure.';
COMMENT ON COLUMN failures.position IS 'Order of the registry (the order surfaces list labels in).';
COMMENT ON COLUMN failures.title IS 'The label in a few words.';
COMMENT ON COLUMN failures.description IS 'What the label means, in a sentence or two.';
COMMENT ON COLUMN failures.example IS 'An example of a call or result carrying it.';
COMMENT ON COLUMN failures.levels IS 'What carries it: call, result, or call and result (a result carries every label of its calls).';
COMMENT ON COLUMN failures.decided IS 'Where it is decided: the rule function per call or per result at parse time, or view result_failures.';
COMMENT ON COLUMN failures.per_call IS 'True for a label decided per tool call (rows in call_failures).';
COMMENT ON COLUMN failures.is_error IS 'True when a call carrying it is an error (tool_calls.is_error): the tool refused, failed or was never reached; false for an empty or truncated result, an answer.';

CREATE TABLE failure_texts (
    rule     VARCHAR,
    position INTEGER,
    failure  VARCHAR,
    detail   VARCHAR,
    starts   VARCHAR,
    pattern  VARCHAR,
    source   VARCHAR,
    example  VARCHAR
);
COMMENT ON TABLE failure_texts IS 'The texts the writer''s tools return on a failure (UCSC-VLAA/ClinSeekAgent), one row per rule of etl/failures/texts.py TEXT_RULES, in the order they are tried: the label and kind each text shows and where the writer returns it.';
COMMENT ON COLUMN failure_texts.rule IS 'Rule name.';
COMMENT ON COLUMN failure_texts.position IS 'Order in which the rules are tried (the first match decides).';
COMMENT ON COLUMN failure_texts.failure IS 'The label the text shows (table failures).';
COMMENT ON COLUMN failure_texts.detail IS 'The kind it gives (call_failures.detail); NULL when the rule reads the kind from the text.';
COMMENT ON COLUMN failure_texts.starts IS 'The starts of the text it matches, separated by |; NULL for a pattern rule.';
COMMENT ON COLUMN failure_texts.pattern IS 'The regular expression it matches from the start of the text; NULL for a starts rule.';
COMMENT ON COLUMN failure_texts.source IS 'The writer''s file and function that return the text.';
COMMENT ON COLUMN failure_texts.example IS 'An example of the text.';
