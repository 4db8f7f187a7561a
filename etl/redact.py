"""Redaction for a shareable warehouse: no free text from the records, keyed id hashes.

The rules are in sql/redact/redact.sql, their one home: per staged column a rule of its own,
kept as loaded (with the reason), or by default the patient ids inside it hashed; the
`redaction_plan` view there turns them into (table, column, expression). The load applies
the expressions in the SELECT that fills each table, so the originals are never written to
the database file. The same key gives the same hashes, so two redacted warehouses built with
one key can still be joined on patient ids; without the key the ids cannot be recovered by
hashing candidate ids. Question ids keep their task prefix; the patient ids inside them are
hashed like the id columns (redact_ids in sql/redact/redact.sql)."""

from __future__ import annotations

import duckdb

from etl.schema import SQL_DIR, arrow_schemas

Redactions = dict[str, dict[str, str]]


def prepare_redaction(con: duckdb.DuckDBPyConnection, key: str | None) -> Redactions:
    """Define the redaction macros on con (keyed with key) and return, per staged table, the
    expression that replaces each redacted column."""
    if not key:
        raise ValueError("redaction needs a key")
    con.execute("SET VARIABLE redact_key = ?", [key])
    con.execute("CREATE OR REPLACE TEMP TABLE redaction_columns (table_name VARCHAR, "
                "column_name VARCHAR, data_type VARCHAR)")
    con.executemany("INSERT INTO redaction_columns VALUES (?, ?, ?)",
                    [(table, field.name, "VARCHAR" if str(field.type) in ("string",
                                                                          "large_string")
                      else str(field.type))
                     for table, schema in arrow_schemas().items() for field in schema])
    con.execute((SQL_DIR / "redact" / "redact.sql").read_text(encoding="utf-8"))
    out: Redactions = {}
    for table, column, expression in con.execute(
            "SELECT table_name, column_name, expression FROM redaction_plan "
            "ORDER BY ALL").fetchall():
        out.setdefault(table, {})[column] = expression
    return out
