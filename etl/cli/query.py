"""`etl query`: read-only SQL against the warehouse (the rules are etl/query.py's)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import duckdb

from etl.cli.errors import EtlCommand
from etl.cli.options import db_option, echo_rows, format_option, table_options
from etl.query import QueryFailed, QueryRefused, run_queries


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


def _count_statements(sql: str) -> int:
    """Statements in sql, counted without opening the database."""
    with duckdb.connect(":memory:") as parser:
        try:
            return len(parser.extract_statements(sql))
        except duckdb.Error as error:
            raise QueryFailed(str(error).strip()) from None


@click.command("query", cls=EtlCommand, error_prefix="etl query: ")
@click.argument("sql", required=False)
@db_option(build=False)
@click.option(
    "--file",
    "sql_file",
    type=click.Path(dir_okay=True, allow_dash=True),
    help="Read the SQL from this file ('-' for standard input) instead of the argument.",
)
@format_option("table: aligned text; csv; json: a list of objects; md: Markdown table.")
@click.option(
    "--max-rows",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="Print at most N rows per statement (0: no limit); a note on stderr says when cut.",
)
@table_options
def query_command(
    sql: str | None,
    db: Path,
    sql_file: str | None,
    fmt: str,
    max_rows: int,
    columns: list[str] | None,
    wide: bool,
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
    if sql is not None and sql_file is not None:
        raise QueryRefused("give the SQL as an argument or with --file, not both")
    if sql_file is not None:
        sql = _read_sql_file(sql_file)
    if sql is None:
        raise QueryRefused('no SQL given: etl query "SELECT ..." or etl query --file F')
    if fmt in ("csv", "json"):
        # a csv/json output is one document
        n_statements = _count_statements(sql)
        if n_statements > 1:
            raise QueryRefused(
                f"--format {fmt} takes one statement ({n_statements} given); "
                "run them one at a time or use --format table / md"
            )
    results = run_queries(db, sql, max_rows=max_rows or None)
    for index, result in enumerate(results):
        if index:
            click.echo("")
        if fmt == "table" and result.columns == ["explain_key", "explain_value"]:
            # A plan is a drawing spanning many lines; escaping its newlines would ruin it.
            click.echo("\n".join(str(row[1]) for row in result.rows), nl=False)
        else:
            echo_rows(result.columns, result.rows, fmt, columns, wide)
        if result.truncated:
            click.echo(
                f"etl query: showing the first {max_rows} rows; more exist "
                "(--max-rows 0 shows all)",
                err=True,
            )
