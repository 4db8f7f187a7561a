-- Redaction for a shareable warehouse (ingest --redact): remove every free text taken from
-- the records and replace patient / admission / stay ids by keyed hashes. The key is bound by
-- the caller, never pasted into this text. Counts, scores and views are computed from
-- columns that stay (status, labels, predictions, set sizes, lengths), so they still work.
UPDATE messages SET content = NULL, reasoning = NULL;
UPDATE tool_calls SET arguments = NULL;
UPDATE images SET data = NULL;
UPDATE rejects SET excerpt = NULL;
UPDATE results SET
    question = NULL,
    error = CASE WHEN error IS NULL THEN NULL ELSE '[redacted]' END,
    subject_id = CASE WHEN subject_id IS NULL THEN NULL
        ELSE ('0x' || substr(sha256($key || ':subject:' || CAST(subject_id AS VARCHAR)), 1, 15))::BIGINT END,
    subject_id_text = CASE WHEN subject_id_text IS NULL THEN NULL
        ELSE substr(sha256($key || ':subject:' || subject_id_text), 1, 16) END,
    hadm_id = CASE WHEN hadm_id IS NULL THEN NULL
        ELSE ('0x' || substr(sha256($key || ':hadm:' || CAST(hadm_id AS VARCHAR)), 1, 15))::BIGINT END,
    stay_id = CASE WHEN stay_id IS NULL THEN NULL
        ELSE ('0x' || substr(sha256($key || ':stay:' || CAST(stay_id AS VARCHAR)), 1, 15))::BIGINT END;
