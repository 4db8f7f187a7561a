-- Redaction for a shareable warehouse (ingest --redact): the one home of its rules. The
-- redacted values replace the originals in the very statements that load the tables, so
-- the free text never reaches the database file (an UPDATE afterwards would leave the old
-- blocks readable in it). The key is set by the caller as the variable redact_key (a bound
-- parameter); the caller also fills redaction_columns (table, column, type) with every
-- column of every staged table (from schema/) before running this file.
--
-- Every text column of every staged table gets exactly one rule, decided by redaction_plan
-- at the end of this file: a rule of its own (redactions: removed, hashed, keys only), kept
-- as loaded (redactions_kept, each with the reason it names no patient), or else the
-- default: the patient ids inside it hashed (redact_ids). So a column added to schema/ later
-- is redacted by default, never shared by omission.

-- A keyed hash of an id, as a BIGINT so joins and types stay as they were.
CREATE OR REPLACE TEMP MACRO redact_id(kind, v) AS
    CASE WHEN v IS NULL THEN NULL
         ELSE ('0x' || substr(sha256(getvariable('redact_key') || ':' || kind || ':'
                                     || CAST(v AS VARCHAR)), 1, 15))::BIGINT END;

-- The same for ids that are text.
CREATE OR REPLACE TEMP MACRO redact_text_id(kind, v) AS
    CASE WHEN v IS NULL THEN NULL
         ELSE substr(sha256(getvariable('redact_key') || ':' || kind || ':' || v), 1, 16) END;

-- Every run of 6 or more ASCII digits inside a text hashed as kind 'number' (used for the
-- runs that sit inside a longer token, such as x18109169y).
CREATE OR REPLACE TEMP MACRO redact_digit_runs(t) AS
    array_to_string(list_transform(regexp_extract_all(t, '[0-9]+|[^0-9]+'), lambda part:
        CASE WHEN regexp_full_match(part, '[0-9]{6,}')
             THEN CAST(redact_id('number', part) AS VARCHAR)
             ELSE part END), '');

-- One word (letters, digits, '_') with the ids in it hashed: every '_'-separated token of 6
-- or more digits is replaced by redact_id of the n-th such token's kind (1st subject, 2nd
-- hadm, 3rd stay, further 'number'), in decimal; a run of 6+ digits inside a longer token
-- by its 'number' hash; the other tokens (the task prefix) stay as written. So the qid
-- ED_Hospitalization_14649471_28340153 becomes ED_Hospitalization_<results.subject_id>_
-- <results.hadm_id> of the redacted row, and the session id <qid>__q_3__run_1 keeps the
-- same hashes.
CREATE OR REPLACE TEMP MACRO redact_word(w) AS
    array_to_string(list_transform(string_split(w, '_'), lambda token, i:
        CASE WHEN regexp_full_match(token, '[0-9]{6,}')
             THEN CAST(redact_id(coalesce(['subject', 'hadm', 'stay'][1 + len(list_filter(
                      string_split(w, '_')[1:i - 1],
                      lambda before: regexp_full_match(before, '[0-9]{6,}')))], 'number'),
                  token) AS VARCHAR)
             WHEN regexp_matches(token, '[0-9]{6}') THEN redact_digit_runs(token)
             ELSE token END), '_');

-- A text with the patient ids in it hashed: each word (a run of letters, digits and '_')
-- holding 6 or more digits in a row goes through redact_word; everything between words is
-- kept. The rule cannot tell an id from another number of 6+ digits (a timestamp such as
-- 20260421, a pid), so those are hashed too. Equal texts give equal results, so joins and
-- comparisons on a redacted column still hold.
CREATE OR REPLACE TEMP MACRO redact_ids(v) AS
    CASE WHEN v IS NULL OR NOT regexp_matches(v, '[0-9]{6}') THEN v
         ELSE array_to_string(list_transform(
             regexp_extract_all(v, '[A-Za-z0-9_]+|[^A-Za-z0-9_]+'), lambda piece:
                 CASE WHEN regexp_matches(piece, '[0-9]{6}') THEN redact_word(piece)
                      ELSE piece END), '') END;

-- A JSON object of leftover fields reduced to the JSON array of its keys (ids hashed).
CREATE OR REPLACE TEMP MACRO redact_keys(v) AS
    CASE WHEN v IS NULL THEN NULL ELSE redact_ids(CAST(to_json(json_keys(v)) AS VARCHAR)) END;

-- A reason written by the ingest, with every double-quoted JSON string in it (values of a
-- record quoted in the reason, e.g. a hadm_id that is not a number) reduced to "..." and the
-- ids hashed. A string cut short by the reason's length limit is reduced to its end.
CREATE OR REPLACE TEMP MACRO redact_reason(v) AS
    redact_ids(regexp_replace(v, '"([^"\\]|\\.)*("|$)', '"..."', 'g'));

-- Numbers under a key that names an id. A summary or metadata file may write a patient id
-- as a JSON number ({"worst_subject_id": 77737001}, {"subject_ids": [1, 2]}), where no digit
-- of a text is to be seen: the key tells. key_words: the words of a key (split at every
-- character that is not a letter, and at case changes: worstSubjectId is worst subject id).
CREATE OR REPLACE TEMP MACRO key_words(k) AS
    regexp_extract_all(lower(regexp_replace(coalesce(k, ''), '([a-z0-9])([A-Z])', '\1_\2',
                                            'g')), '[a-z]+');

-- The keys of a JSON path as the staging writes them ($.a.b[0], a.b[0].c, $["a b"].c,
-- --subject_id), list positions and keys made only of digits left out.
CREATE OR REPLACE TEMP MACRO path_keys(path) AS
    list_filter(regexp_extract_all(coalesce(path, ''), '[^.\[\]"$]+'),
                lambda k: NOT regexp_full_match(k, '[0-9]+'));

-- The words that say what the value at path is: those of its last key, and when that key
-- says only id or ids (patients[0].id), those of the key above it too.
CREATE OR REPLACE TEMP MACRO value_words(path) AS
    CASE WHEN key_words(path_keys(path)[-1]) IN (['id'], ['ids'])
         THEN key_words(path_keys(path)[-2]) || key_words(path_keys(path)[-1])
         ELSE key_words(path_keys(path)[-1]) END;

-- The kind of id the value at path is (subject, hadm, stay, session), or NULL: a key whose
-- words name a subject, patient, hadm, stay or session (or their plurals), unless a word
-- says it counts them (n_subjects, total_stays, length_of_stay).
CREATE OR REPLACE TEMP MACRO id_kind_of(path) AS
    CASE WHEN list_has_any(value_words(path),
                           ['n', 'num', 'count', 'counts', 'total', 'len', 'length'])
         THEN NULL
         WHEN list_has_any(value_words(path), ['subject', 'subjects', 'patient', 'patients'])
         THEN 'subject'
         WHEN list_has_any(value_words(path), ['hadm', 'hadms']) THEN 'hadm'
         WHEN list_has_any(value_words(path), ['stay', 'stays']) THEN 'stay'
         WHEN list_has_any(value_words(path), ['session', 'sessions']) THEN 'session'
         END;

-- A value written as text under a key: an integer under a key naming an id becomes the
-- keyed hash of its kind (the very value of the hashed id columns); anything else has the
-- ids inside it hashed.
CREATE OR REPLACE TEMP MACRO redact_keyed_text(path, v) AS
    CASE WHEN id_kind_of(path) IS NOT NULL AND regexp_full_match(trim(v), '[+-]?[0-9]+')
         THEN CAST(redact_id(id_kind_of(path), regexp_extract(trim(v), '[0-9]+')) AS VARCHAR)
         ELSE redact_ids(v) END;

-- Rules of their own. table_name NULL: every staged table that has the column.
CREATE OR REPLACE TEMP TABLE redactions (table_name VARCHAR, column_name VARCHAR,
                                         expression VARCHAR);
INSERT INTO redactions VALUES
    -- free text taken from the records: removed
    ('messages', 'content', 'NULL'),
    ('messages', 'reasoning', 'NULL'),
    ('tool_calls', 'arguments', 'NULL'),
    ('images', 'data', 'NULL'),
    ('rejects', 'excerpt', 'NULL'),
    ('results', 'question', 'NULL'),
    ('results', 'error', 'CASE WHEN s.error IS NULL THEN NULL ELSE ''[redacted]'' END'),
    -- the ingest's own reason, which may quote a record's values
    ('rejects', 'error', 'redact_reason(s.error)'),
    -- patient ids: keyed hashes
    ('results', 'subject_id', 'redact_id(''subject'', s.subject_id)'),
    ('results', 'subject_id_text', 'redact_text_id(''subject'', s.subject_id_text)'),
    ('results', 'hadm_id', 'redact_id(''hadm'', s.hadm_id)'),
    ('results', 'stay_id', 'redact_id(''stay'', s.stay_id)'),
    -- numbers and texts under a key naming an id: a number column cannot hold the hash
    -- exactly, so the number is removed; a text column gets the hash
    ('summary_metrics', 'value',
     'CASE WHEN id_kind_of(s.json_path) IS NULL THEN s.value END'),
    ('run_meta', 'value', 'redact_keyed_text(s.key, s.value)'),
    -- a model named by a file (a status.json model_tag, a run.log backend id), not by the
    -- run directory: the ids in it hashed, as in backend_model_id beside it
    ('run_regions', 'model', 'redact_ids(s.model)'),
    -- leftover fields (the extra columns of schema/00_core.sql and schema/10_scores.sql)
    -- hold record text too (candidates, bedrock_content_blocks, judge_reason, ...): only the
    -- names of the keys remain
    ('results', 'extra', 'redact_keys(s.extra)'),
    ('messages', 'extra', 'redact_keys(s.extra)'),
    ('tool_calls', 'extra', 'redact_keys(s.extra)'),
    ('question_scores', 'extra', 'redact_keys(s.extra)'),
    ('inspect_logs', 'extra', 'redact_keys(s.extra)');

-- Text columns kept as loaded, and why they name no patient. table_name NULL: every table.
-- Names of directories and files are kept (the lineage views compare them): a directory or
-- file named after a patient keeps that name (docs/SAFETY.md).
CREATE OR REPLACE TEMP TABLE redactions_kept (table_name VARCHAR, column_name VARCHAR,
                                              why VARCHAR);
INSERT INTO redactions_kept VALUES
    (NULL, 'run_id', 'the logical path of the run directory'),
    (NULL, 'file_id', 'a hash of the logical path of the file'),
    (NULL, 'benchmark', 'from the directory layout'),
    (NULL, 'mode', 'from the directory layout'),
    (NULL, 'split', 'from the directory layout'),
    (NULL, 'model', 'the canonical model key of the run directory'),
    (NULL, 'source_dir', 'a directory of the tree'),
    (NULL, 'ingest_id', 'the id of an ingest: when it started and a random suffix'),
    ('results', 'error_kind', 'computed by the load from a fixed list of kinds'),
    ('rejects', 'path', 'the logical path of the file'),
    ('images', 'data_sha256', 'a hash of the image data (digits in it are not ids)');

-- Tables the ingest writes itself (the walk of the tree: files, runs; its own lists: models,
-- model_aliases, ingests) or computes after the load from tables already redacted: none
-- of their columns is read from a record, so none has a rule here.
CREATE OR REPLACE TEMP TABLE redactions_not_staged (table_name VARCHAR, why VARCHAR);
INSERT INTO redactions_not_staged VALUES
    ('files', 'the walk of the tree: paths, kinds, sizes, hashes'),
    ('runs', 'the walk of the tree: run directories'),
    ('models', 'the tool''s model list'),
    ('model_aliases', 'the tool''s alias list and the redacted results.backend_model_id'),
    ('ingests', 'the ingest itself: root, options, counts'),
    ('archive_runs', 'computed from runs'),
    ('question_best_at_k', 'computed from the redacted question_scores'),
    ('paired_comparisons', 'computed from the redacted views');

-- What the load applies: (table, column, expression) for every staged column that is
-- redacted. Columns that are not text (counts, scores, flags) are kept.
CREATE OR REPLACE TEMP VIEW redaction_plan AS
SELECT c.table_name, c.column_name,
       coalesce(own.expression, every.expression,
                'redact_ids(s."' || c.column_name || '")') AS expression
FROM redaction_columns AS c
ANTI JOIN redactions_not_staged AS n ON n.table_name = c.table_name
LEFT JOIN redactions AS own
    ON own.table_name = c.table_name AND own.column_name = c.column_name
LEFT JOIN redactions AS every
    ON every.table_name IS NULL AND every.column_name = c.column_name
WHERE own.expression IS NOT NULL OR every.expression IS NOT NULL
   OR (c.data_type = 'VARCHAR' AND NOT EXISTS (
        SELECT 1 FROM redactions_kept AS k
        WHERE k.column_name = c.column_name
          AND (k.table_name IS NULL OR k.table_name = c.table_name)));
