"""`etl query`: run read-only SQL against the warehouse, safely.

Design promise 6: the query command is read-only and cannot read or write files outside the
database. Three independent layers keep it, so a gap in one is caught by another:

1. Statement allow-list, decided by DuckDB's own parser (`extract_statements`): only SELECT
   (which covers WITH, VALUES, FROM-first, SHOW, DESCRIBE, SUMMARIZE), EXPLAIN of a
   SELECT, and a fixed list of catalog-inspecting PRAGMAs. Everything else (COPY, ATTACH,
   INSTALL/LOAD, SET, CREATE, INSERT, CALL, CHECKPOINT, EXPORT, ...) is refused before any
   statement runs.
2. The connection (etl/connection.py open_warehouse, the one every reader uses): the file is
   opened `read_only`, with `enable_external_access=false` (no file, glob, URL or extension
   access from SQL: read_csv('/etc/passwd') fails inside DuckDB), extension
   autoload/autoinstall off, and `lock_configuration=true` so no statement can undo any of
   this.
3. A short-lived connection per call (open, query, close), so an ingest that atomically
   renames a new file over the database is never blocked and the next call sees the new file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from etl.connection import WarehouseUnavailable, open_warehouse
from etl.errors import EtlError, first_line

__all__ = ["QueryFailed", "QueryRefused", "QueryResult", "check_read_only",
           "run_queries", "run_query", "run_statements"]

# PRAGMAs that only read the catalog or version. Setting-changing PRAGMAs are parsed as SET
# or are blocked by lock_configuration anyway; this list keeps the door shut explicitly.
READ_ONLY_PRAGMAS: frozenset[str] = frozenset(
    {
        "version",
        "platform",
        "user_agent",
        "show_tables",
        "show_tables_expanded",
        "show_databases",
        "database_list",
        "database_size",
        "table_info",
        "show",
        "storage_info",
        "metadata_info",
        "functions",
        "collations",
    }
)

_LEADING_NOISE = r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*"
_EXPLAIN_PREFIX = re.compile(
    _LEADING_NOISE + r"explain\b(?:\s+analy[sz]e\b)?\s*(?:\([^)]*\))?", re.IGNORECASE | re.DOTALL
)
_PRAGMA_NAME = re.compile(
    _LEADING_NOISE + r"pragma\s+([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE | re.DOTALL
)

ALLOWED_SUMMARY = (
    "only read statements are allowed: SELECT / WITH / VALUES / FROM / SHOW / DESCRIBE / "
    "SUMMARIZE, EXPLAIN [ANALYZE] of those, and catalog PRAGMAs (version, show_tables, "
    "table_info, database_size, ...)"
)


class QueryRefused(EtlError):
    """The SQL is not allowed here (a write, a file access, a setting) or the database is
    unusable; the message is one line, meant for the user."""

    exit_code = 2


class QueryFailed(EtlError):
    """DuckDB rejected an allowed statement (syntax error, unknown column, ...); the message
    is DuckDB's own."""


@dataclass(frozen=True)
class QueryResult:
    """One statement's result. `truncated` is True when more rows existed than were fetched."""

    statement: str
    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool


def _statement_text(statement: duckdb.Statement) -> str:
    return statement.query.strip().rstrip(";").strip()


def _refusal(statement: duckdb.Statement, why: str) -> QueryRefused:
    text = " ".join(_statement_text(statement).split())
    if len(text) > 60:
        text = text[:57] + "..."
    return QueryRefused(f"refused {why}: {text!r}; {ALLOWED_SUMMARY}")


def check_read_only(con: duckdb.DuckDBPyConnection, sql: str) -> list[duckdb.Statement]:
    """Split `sql` with DuckDB's parser and return its statements if every one is a read.

    Raises QueryRefused naming the first statement that is not, QueryFailed on a syntax
    error. Nothing is executed."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as error:
        raise QueryFailed(str(error).strip()) from None
    if not statements:
        raise QueryRefused("no SQL statement given")
    for statement in statements:
        kind = statement.type
        if kind == duckdb.StatementType.SELECT:
            continue
        if kind == duckdb.StatementType.EXPLAIN:
            _check_explained(con, statement)
            continue
        if kind == duckdb.StatementType.PRAGMA:
            match = _PRAGMA_NAME.match(statement.query)
            if match is None or match.group(1).lower() not in READ_ONLY_PRAGMAS:
                raise _refusal(statement, "PRAGMA")
            continue
        raise _refusal(statement, f"{kind.name} statement")
    return statements


def _check_explained(con: duckdb.DuckDBPyConnection, statement: duckdb.Statement) -> None:
    # EXPLAIN ANALYZE executes its statement, so what is explained must be a read too.
    match = _EXPLAIN_PREFIX.match(statement.query)
    if match is None:
        raise _refusal(statement, "EXPLAIN form")
    try:
        inner = con.extract_statements(statement.query[match.end() :])
    except duckdb.Error as error:
        raise QueryFailed(str(error).strip()) from None
    if len(inner) != 1 or inner[0].type != duckdb.StatementType.SELECT:
        raise _refusal(statement, "EXPLAIN of a non-read statement")


def _execute(
    con: duckdb.DuckDBPyConnection, statement: duckdb.Statement, max_rows: int | None
) -> QueryResult:
    try:
        cursor = con.execute(statement.query)
        columns = [d[0] for d in cursor.description or []]
        if max_rows is None:
            rows = cursor.fetchall()
            truncated = False
        else:
            rows = cursor.fetchmany(max_rows + 1)
            truncated = len(rows) > max_rows
            rows = rows[:max_rows]
    except duckdb.PermissionException as error:
        raise QueryRefused(
            "refused: etl query cannot read or write files outside the database "
            f"({first_line(error)})"
        ) from None
    except duckdb.Error as error:
        message = str(error).strip()
        if "read-only mode" in message or "configuration has been locked" in message:
            raise QueryRefused(f"refused: {first_line(error)}") from None
        raise QueryFailed(message) from None
    return QueryResult(_statement_text(statement), columns, rows, truncated)


def run_queries(
    db_path: str | Path, sql: str, *, max_rows: int | None = None
) -> list[QueryResult]:
    """Run every statement of `sql` against the database at `db_path`, read-only.

    All statements are checked before the first one runs; a refused statement means nothing
    runs. `max_rows` caps the rows fetched per statement (None: all). The connection is
    closed before returning."""
    try:
        con = open_warehouse(db_path)
    except WarehouseUnavailable as error:
        raise QueryRefused(str(error)) from None
    try:
        return run_statements(con, sql, max_rows=max_rows)
    finally:
        con.close()


def run_statements(
    con: duckdb.DuckDBPyConnection, sql: str, *, max_rows: int | None = None
) -> list[QueryResult]:
    """run_queries on a connection the caller opened with open_warehouse (e.g. a cursor of a
    long-lived one): the same allow-list, every statement checked before the first runs."""
    statements = check_read_only(con, sql)
    return [_execute(con, statement, max_rows) for statement in statements]


def run_query(db_path: str | Path, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run read-only `sql` against the database at `db_path` and return (column names, rows)
    of its last statement. Raises QueryRefused or QueryFailed."""
    last = run_queries(db_path, sql)[-1]
    return last.columns, last.rows
