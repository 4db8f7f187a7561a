-- Redaction for a shareable warehouse (ingest --redact). The redacted values replace the
-- originals in the very statements that load the tables, so the free text never reaches
-- the database file (an UPDATE afterwards would leave the old blocks readable in it).
-- The key is set by the caller as the variable redact_key (a bound parameter).

-- A keyed hash of an id, as a BIGINT so joins and types stay as they were.
CREATE OR REPLACE TEMP MACRO redact_id(kind, v) AS
    CASE WHEN v IS NULL THEN NULL
         ELSE ('0x' || substr(sha256(getvariable('redact_key') || ':' || kind || ':'
                                     || CAST(v AS VARCHAR)), 1, 15))::BIGINT END;

-- The same for ids that are text.
CREATE OR REPLACE TEMP MACRO redact_text_id(kind, v) AS
    CASE WHEN v IS NULL THEN NULL
         ELSE substr(sha256(getvariable('redact_key') || ':' || kind || ':' || v), 1, 16) END;

-- A question id with the patient ids inside it hashed: every '_'-separated token of 6 or
-- more digits is replaced by redact_id of the n-th such token's kind (1st subject, 2nd
-- hadm, 3rd stay, further 'number'), written in decimal; the other tokens (the task prefix)
-- stay as written. So ED_Hospitalization_14649471_28340153 becomes
-- ED_Hospitalization_<results.subject_id>_<results.hadm_id> of the redacted row, the same
-- question gets the same id in every table, and joins on qid still work.
CREATE OR REPLACE TEMP MACRO redact_qid(q) AS
    CASE WHEN q IS NULL THEN NULL
         ELSE array_to_string(list_transform(string_split(q, '_'), lambda token, i:
             CASE WHEN regexp_full_match(token, '[0-9]{6,}')
                  THEN CAST(redact_id(coalesce(['subject', 'hadm', 'stay'][1 + len(list_filter(
                           string_split(q, '_')[1:i - 1],
                           lambda before: regexp_full_match(before, '[0-9]{6,}')))], 'number'),
                       token) AS VARCHAR)
                  ELSE token END), '_') END;

-- Columns redacted in every table that has them (etl/redact.py finds the tables in schema/).
CREATE OR REPLACE TEMP TABLE redactions_every_table (column_name VARCHAR, expression VARCHAR);
INSERT INTO redactions_every_table VALUES
    ('qid', 'redact_qid(s.qid)');

-- A JSON object of leftover fields reduced to the JSON array of its keys.
CREATE OR REPLACE TEMP MACRO redact_keys(v) AS
    CASE WHEN v IS NULL THEN NULL ELSE CAST(to_json(json_keys(v)) AS VARCHAR) END;

-- What is removed: every free text taken from the records (questions, message content,
-- reasoning, tool arguments and results, image data, error texts, reject excerpts).
-- What remains: labels, predictions, statuses, counts, lengths, scores, run metadata.
CREATE OR REPLACE TEMP TABLE redactions (table_name VARCHAR, column_name VARCHAR,
                                         expression VARCHAR);
INSERT INTO redactions VALUES
    ('messages', 'content', 'NULL'),
    ('messages', 'reasoning', 'NULL'),
    ('tool_calls', 'arguments', 'NULL'),
    ('images', 'data', 'NULL'),
    ('rejects', 'excerpt', 'NULL'),
    ('results', 'question', 'NULL'),
    ('results', 'error', 'CASE WHEN s.error IS NULL THEN NULL ELSE ''[redacted]'' END'),
    ('results', 'subject_id', 'redact_id(''subject'', s.subject_id)'),
    ('results', 'subject_id_text', 'redact_text_id(''subject'', s.subject_id_text)'),
    ('results', 'hadm_id', 'redact_id(''hadm'', s.hadm_id)'),
    ('results', 'stay_id', 'redact_id(''stay'', s.stay_id)'),
    -- leftover fields (schema/30_writer_fields.sql) hold record text too (candidates,
    -- bedrock_content_blocks, judge_reason, ...): only the names of the keys remain
    ('results', 'extra', 'redact_keys(s.extra)'),
    ('messages', 'extra', 'redact_keys(s.extra)'),
    ('tool_calls', 'extra', 'redact_keys(s.extra)'),
    ('question_scores', 'extra', 'redact_keys(s.extra)');
