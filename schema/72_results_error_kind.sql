-- The kind of failure of a result, decided at load from the raw error text (sql/load/
-- error_kind.sql) so it survives --redact, which replaces the text itself.

ALTER TABLE results ADD COLUMN error_kind VARCHAR;

COMMENT ON COLUMN results.error_kind IS 'none, throttling, ssl, timeout, connection, server (infrastructure), context_length, parse_error, no_final_answer (model) or other; from error, status and stop_reason at load (sql/load/error_kind.sql), before any redaction. The view result_error_class maps it to error_class.';
