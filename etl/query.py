"""`etl query`: run read-only SQL against the warehouse, safely.

Design promise 6: the query command is read-only and cannot read or write files outside the
database. Three independent layers keep it, so a gap in one is caught by another:

1. Statement allow-list, decided by DuckDB's own parser (`extract_statements`): only SELECT
   (which covers WITH, VALUES, FROM-first, SHOW, DESCRIBE, SUMMARIZE), EXPLAIN of a
   SELECT, and a fixed list of catalog-inspecting PRAGMAs. Everything else (COPY, ATTACH,
   INSTALL/LOAD, SET, CREATE, INSERT, CALL, CHECKPOINT, EXPORT, ...) is refused before any
   statement runs.
2. The connection: the file is opened `read_only`, with `enable_external_access=false` (no
   file, glob, URL or extension access from SQL: read_csv('/etc/passwd') fails inside DuckDB),
   extension autoload/autoinstall off, and `lock_configuration=true` so no statement can undo
   any of this.
3. A short-lived connection per call (open, query, close), so an ingest that atomically
   renames a new file over the database is never blocked and the next call sees the new file.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import duckdb

from etl.output import FORMATS, format_rows
from etl.schema import is_warehouse

# Settings applied when the connection is opened; lock_configuration makes them final.
SAFE_CONFIG: dict[str, Any] = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "allow_community_extensions": False,
    "lock_configuration": True,
}

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


class QueryRefused(Exception):
    """The SQL is not allowed here (a write, a file access, a setting) or the database is
    unusable; the message is one line, meant for the user."""


class QueryFailed(Exception):
    """DuckDB rejected an allowed statement (syntax error, unknown column, ...); the message
    is DuckDB's own."""


@dataclass(frozen=True)
class QueryResult:
    """One statement's result. `truncated` is True when more rows existed than were fetched."""

    statement: str
    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def open_read_only(
    db_path: str | Path, resources: dict[str, Any] | None = None
) -> duckdb.DuckDBPyConnection:
    """Open the warehouse file read-only with file access and configuration changes disabled.

    `resources`: extra settings that only bound what the connection may use (memory_limit,
    threads, ...); the safety settings of SAFE_CONFIG always win over them. DuckDB shares one
    database per file within a process and refuses a second connection with other settings,
    so every connection of one process to one file must pass the same resources.
    Raises QueryRefused when the file is missing or DuckDB cannot open it."""
    path = Path(db_path)
    if not path.exists():
        raise QueryRefused(
            f"database not found: {path} (build it with `etl ingest ROOT --db {path}`)"
        )
    if not path.is_file():
        raise QueryRefused(f"database path is not a file: {path}")
    try:
        return duckdb.connect(str(path), read_only=True,
                              config={**(resources or {}), **SAFE_CONFIG})
    except duckdb.Error as error:
        raise QueryRefused(f"cannot open database {path}: {_first_line(error)}") from None


def require_warehouse(con: duckdb.DuckDBPyConnection, db_path: str | Path) -> None:
    """Raise QueryRefused (and close con) unless con holds a warehouse this tool built: on
    another DuckDB file the commands would fail on a missing table, and DuckDB would suggest
    a table of that file instead."""
    if not is_warehouse(con):
        con.close()
        raise QueryRefused(
            f"{db_path} is a DuckDB database but not a warehouse of this tool (it has no "
            f"ingests table); build one with `etl ingest ROOT --db WAREHOUSE.duckdb` and "
            f"pass that file as --db")


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
            f"({_first_line(error)})"
        ) from None
    except duckdb.Error as error:
        message = str(error).strip()
        if "read-only mode" in message or "configuration has been locked" in message:
            raise QueryRefused(f"refused: {_first_line(error)}") from None
        raise QueryFailed(message) from None
    return QueryResult(_statement_text(statement), columns, rows, truncated)


def run_queries(
    db_path: str | Path, sql: str, *, max_rows: int | None = None
) -> list[QueryResult]:
    """Run every statement of `sql` against the database at `db_path`, read-only.

    All statements are checked before the first one runs; a refused statement means nothing
    runs. `max_rows` caps the rows fetched per statement (None: all). The connection is
    closed before returning."""
    con = open_read_only(db_path)
    try:
        return run_statements(con, sql, max_rows=max_rows)
    finally:
        con.close()


def run_statements(
    con: duckdb.DuckDBPyConnection, sql: str, *, max_rows: int | None = None
) -> list[QueryResult]:
    """run_queries on a connection the caller opened with open_read_only (e.g. a cursor of a
    long-lived one): the same allow-list, every statement checked before the first runs."""
    statements = check_read_only(con, sql)
    return [_execute(con, statement, max_rows) for statement in statements]


def run_query(db_path: str | Path, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run read-only `sql` against the database at `db_path` and return (column names, rows)
    of its last statement. Raises QueryRefused or QueryFailed."""
    last = run_queries(db_path, sql)[-1]
    return last.columns, last.rows


def _read_sql_file(sql_file: str) -> str:
    if sql_file == "-":
        return sys.stdin.read()
    path = Path(sql_file)
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise QueryRefused(f"SQL file not found: {path}") from None
    except IsADirectoryError:
        raise QueryRefused(f"SQL file is a directory: {path}") from None
    except UnicodeDecodeError:
        raise QueryRefused(f"SQL file is not UTF-8 text: {path}") from None
    except OSError as error:
        raise QueryRefused(f"cannot read SQL file {path}: {error.strerror}") from None


@click.command("query")
@click.argument("sql", required=False)
@click.option(
    "--db",
    "db_path",
    default="warehouse.duckdb",
    show_default=True,
    type=click.Path(dir_okay=True, path_type=Path),
    help="Warehouse database file (opened read-only).",
)
@click.option(
    "--file",
    "sql_file",
    type=click.Path(dir_okay=True, allow_dash=True),
    help="Read the SQL from this file ('-' for standard input) instead of the argument.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="table: aligned text; csv; json: a list of objects; md: Markdown table.",
)
@click.option(
    "--max-rows",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="Print at most N rows per statement (0: no limit); a note on stderr says when cut.",
)
@click.pass_context
def query_command(
    ctx: click.Context,
    sql: str | None,
    db_path: Path,
    sql_file: str | None,
    fmt: str,
    max_rows: int,
) -> None:
    """Run read-only SQL against the warehouse and print the result.

    Allowed: SELECT (also WITH, VALUES, FROM-first, SHOW, DESCRIBE, SUMMARIZE),
    EXPLAIN [ANALYZE] of those, and catalog PRAGMAs (version, show_tables, table_info,
    database_size, ...). Refused, before anything runs: writes of any kind, COPY, EXPORT,
    ATTACH, INSTALL, LOAD, SET, CALL. Reading files from SQL (read_csv, read_text, glob, ...)
    is disabled. Several statements separated by `;` run in turn when all are reads (table
    and md formats; csv and json take one statement so the output is one document).

    Exit codes: 0 ok, 1 DuckDB rejected the query, 2 refused or unusable input.

    \b
    Examples:
      etl query "SELECT * FROM leaderboard ORDER BY rank"
      etl query --format csv "SELECT model, score FROM leaderboard" > scores.csv
      etl query --file report.sql --format md
    """

    def fail(message: str, code: int) -> None:
        click.echo(f"etl query: {message}", err=True)
        ctx.exit(code)

    try:
        if sql is not None and sql_file is not None:
            raise QueryRefused("give the SQL as an argument or with --file, not both")
        if sql_file is not None:
            sql = _read_sql_file(sql_file)
        if sql is None:
            raise QueryRefused('no SQL given: etl query "SELECT ..." or etl query --file F')
        if fmt in ("csv", "json"):
            # Count statements without opening the database: a csv/json output is one document.
            with duckdb.connect(":memory:") as parser:
                n_statements = len(parser.extract_statements(sql))
            if n_statements > 1:
                raise QueryRefused(
                    f"--format {fmt} takes one statement ({n_statements} given); "
                    "run them one at a time or use --format table / md"
                )
        results = run_queries(db_path, sql, max_rows=max_rows or None)
    except QueryRefused as error:
        fail(str(error), 2)
        return
    except QueryFailed as error:
        fail(str(error), 1)
        return
    except duckdb.Error as error:  # a parse error while counting statements
        fail(str(error).strip(), 1)
        return

    for index, result in enumerate(results):
        if index:
            click.echo("")
        if fmt == "table" and result.columns == ["explain_key", "explain_value"]:
            # A plan is a drawing spanning many lines; escaping its newlines would ruin it.
            click.echo("\n".join(str(row[1]) for row in result.rows), nl=False)
        else:
            click.echo(format_rows(result.columns, result.rows, fmt), nl=False)
        if result.truncated:
            click.echo(
                f"etl query: showing the first {max_rows} rows; more exist "
                "(--max-rows 0 shows all)",
                err=True,
            )
