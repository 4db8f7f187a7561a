"""Redaction for a shareable warehouse: no free text from the records, keyed id hashes.

The same key gives the same hashes, so two redacted warehouses built with one key can still
be joined on patient ids; without the key the ids cannot be recovered or guessed by hashing
candidate ids."""

from __future__ import annotations

import duckdb

from etl.schema import SQL_DIR


def redact_database(con: duckdb.DuckDBPyConnection, key: str | None) -> None:
    if not key:
        raise ValueError("redaction needs a key")
    sql = (SQL_DIR / "redact" / "redact.sql").read_text(encoding="utf-8")
    for statement in con.extract_statements(sql):
        text = statement.query
        con.execute(text, {"key": key} if "$key" in text else None)
