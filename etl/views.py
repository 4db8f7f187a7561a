"""The views stage: apply sql/*.sql to a warehouse, check them statically, list them.

sql/ holds plain DuckDB SQL (views and COMMENT ON statements), one file per view or family,
applied in file-name order so a later file may build on an earlier one. The static check
parses every file with sqlglot and qualifies every view against the tables of schema/*.sql
(and the views of earlier files), so a misspelt table or column fails in a test instead of
in an analyst's BI tool."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import duckdb
import sqlglot
from sqlglot import exp
from sqlglot.errors import OptimizeError, ParseError
from sqlglot.optimizer.qualify import qualify
from sqlglot.schema import MappingSchema

from etl import tasks
from etl.benchmarks import benchmark_rows
from etl.failures import registry as failure_registry
from etl.rows import insert_rows
from etl.schema import SCHEMA_DIR, SQL_DIR, sql_files
from etl.scoring import registry
from etl.statuses import status_rows

DIALECT = "duckdb"

# Column types a BI tool cannot chart: nested values. Views must expose flat scalars only.
NESTED_TYPE_MARKERS = ("[", "STRUCT", "MAP", "UNION")
# Scalar types BI drivers and Parquet handle badly: HUGEINT / UHUGEINT (what sum() of an
# integer returns; Parquet has no 128-bit integer, JDBC drivers map it to odd types) and
# DECIMAL (a numeric literal such as 0.5 is DECIMAL in DuckDB; precision varies by driver).
# View columns cast sums to BIGINT and ratios to DOUBLE instead.
UNSTABLE_TYPE_MARKERS = ("HUGEINT", "DECIMAL", "NUMERIC")


class ViewError(Exception):
    """A sql/ or schema/ file could not be applied or does not pass the static check."""


@dataclass(frozen=True)
class ViewColumn:
    name: str
    data_type: str
    comment: str | None


@dataclass(frozen=True)
class ViewInfo:
    name: str
    comment: str | None
    columns: tuple[ViewColumn, ...]


def _execute_files(con: duckdb.DuckDBPyConnection, files: Iterable[Path]) -> None:
    for path in files:
        try:
            con.execute(path.read_text(encoding="utf-8"))
        except duckdb.Error as error:
            raise ViewError(f"{path.name}: {error}") from error


def apply_schema(con: duckdb.DuckDBPyConnection, schema_dir: Path = SCHEMA_DIR) -> None:
    """Create the tables of schema/*.sql (used by tests and tools that need an empty warehouse)."""
    _execute_files(con, sql_files(schema_dir))


def apply_views(con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR) -> None:
    """Write the rule tables the views read (write_rule_tables), then create (or replace)
    every view of sql/*.sql, files in name order.
    Raises ViewError naming the file when one does not apply."""
    write_rule_tables(con)
    _execute_files(con, sql_files(sql_dir))


def write_rule_tables(con: duckdb.DuckDBPyConnection) -> None:
    """The rule tables of schema/12_scorers.sql from their one home each: scorers (the scorer
    registry, etl/scoring/registry.py), benchmarks (etl/benchmarks.py), result_statuses
    (etl/statuses.py), tasks, paper_taxonomy and paper_task_names (etl/tasks.py), failures and
    failure_texts (etl/failures/registry.py), so that the views read the board rules, full
    splits, statuses, tasks and failure labels instead of naming them. Rewritten whole: a few
    rows each."""
    for table, rows in (("scorers", registry.table_rows()),
                        ("benchmarks", benchmark_rows()),
                        ("result_statuses", status_rows()),
                        ("tasks", tasks.task_rows()),
                        ("paper_taxonomy", tasks.paper_taxonomy_rows()),
                        ("paper_task_names", tasks.paper_task_name_rows()),
                        ("failures", failure_registry.table_rows()),
                        ("failure_texts", failure_registry.text_rows())):
        con.execute(f"DELETE FROM {table}")  # fixed names, not data
        insert_rows(con, table, rows)


# DuckDB's per-column compression option (schema/ declares the long text columns ZSTD),
# which sqlglot's DuckDB dialect cannot parse; it changes no name or type the check reads.
_COMPRESSION_OPTION = re.compile(r"\s+USING\s+COMPRESSION\s+\w+", re.IGNORECASE)


def _parse_file(path: Path) -> list[exp.Expression]:
    text = _COMPRESSION_OPTION.sub("", path.read_text(encoding="utf-8"))
    try:
        statements = sqlglot.parse(text, read=DIALECT)
    except ParseError as error:
        raise ViewError(f"{path.name}: sqlglot cannot parse it: {error}") from error
    return [statement for statement in statements if statement is not None]


def _column_type(column: exp.ColumnDef) -> str:
    kind = column.args.get("kind")
    return kind.sql(DIALECT) if kind is not None else "UNKNOWN"


def schema_from_ddl(schema_dir: Path = SCHEMA_DIR) -> dict[str, dict[str, str]]:
    """Table -> {column: type} for every CREATE TABLE in schema/*.sql, read with sqlglot.
    Each table is created once with all its columns (no ALTER TABLE: a reader finds a table's
    whole definition in one place), so this picture is complete."""
    tables: dict[str, dict[str, str]] = {}
    for path in sql_files(schema_dir):
        for statement in _parse_file(path):
            if isinstance(statement, exp.Alter):
                raise ViewError(f"{path.name}: ALTER TABLE {statement.this.name}: change its "
                                "CREATE TABLE instead (each table is created once, whole)")
            if not (isinstance(statement, exp.Create) and statement.kind == "TABLE"):
                continue
            target = statement.this
            if not isinstance(target, exp.Schema):  # CREATE TABLE ... AS SELECT: no column list
                raise ViewError(f"{path.name}: table without a column list is not supported")
            tables[target.this.name] = {
                column.name: _column_type(column)
                for column in target.expressions
                if isinstance(column, exp.ColumnDef)
            }
    return tables


def _check_tables_known(select: exp.Expression, known: dict[str, dict[str, str]]) -> list[str]:
    # qualify() accepts a table it has never heard of when every column is written with a
    # table prefix, so unknown tables are looked for explicitly (CTE names excluded).
    cte_names = {cte.alias_or_name for cte in select.find_all(exp.CTE)}
    unknown = sorted(
        {
            table.name
            for table in select.find_all(exp.Table)
            if table.name and table.name not in cte_names and table.name not in known
        }
    )
    return [f"unknown table or view {name!r}" for name in unknown]


def check_views(sql_dir: Path = SQL_DIR, schema_dir: Path = SCHEMA_DIR) -> list[str]:
    """Parse every sql/*.sql statement with sqlglot (dialect duckdb) and qualify every view
    against the schema/*.sql tables plus the views created before it. Returns the problems
    found, each prefixed with its file name; an empty list means every view checks out."""
    known: dict[str, dict[str, str]] = schema_from_ddl(schema_dir)
    defined_in: dict[str, str] = {}  # view -> the sql/ file that creates it
    problems: list[str] = []
    for path in sql_files(sql_dir):
        try:
            statements = _parse_file(path)
        except ViewError as error:
            problems.append(str(error))
            continue
        for statement in statements:
            found = _check_statement(statement, known)
            if not found:
                found = _check_comment_place(statement, path.name, defined_in)
            problems.extend(f"{path.name}: {p}" for p in found)
    return problems


def _check_comment_place(
    statement: exp.Expression, file_name: str, defined_in: dict[str, str]
) -> list[str]:
    """Remember which file creates each view; a COMMENT ON a view belongs in that file (a
    CREATE OR REPLACE elsewhere would silently drop it)."""
    if isinstance(statement, exp.Create) and statement.kind == "VIEW":
        defined_in[statement.this.name] = file_name
        return []
    if isinstance(statement, exp.Comment):
        kind = str(statement.args.get("kind") or "").upper()
        target = statement.this
        view = target.table if kind == "COLUMN" else target.name
        home = defined_in.get(view)
        if home is not None and home != file_name:
            return [f"COMMENT ON {kind} {target.sql(DIALECT)}: belongs in {home}, which "
                    f"creates view {view}"]
    return []


def _check_statement(statement: exp.Expression, known: dict[str, dict[str, str]]) -> list[str]:
    if isinstance(statement, exp.Create) and statement.kind == "VIEW":
        name = statement.this.name
        select = statement.expression
        problems = _check_tables_known(select, known)
        if problems:
            return [f"view {name}: {p}" for p in problems]
        try:
            qualified = qualify(
                select.copy(),
                schema=MappingSchema(known, dialect=DIALECT),
                dialect=DIALECT,
                validate_qualify_columns=True,
            )
        except OptimizeError as error:
            return [f"view {name}: {error}"]
        # Later views may select from this one: register its output columns.
        known[name] = {column: "UNKNOWN" for column in qualified.named_selects}
        return []
    if isinstance(statement, exp.Comment):
        target = statement.this
        kind = str(statement.args.get("kind") or "").upper()
        if kind in ("VIEW", "TABLE") and target.name not in known:
            return [f"COMMENT ON {kind} {target.name}: no such view or table"]
        if kind == "COLUMN":
            # COMMENT ON COLUMN <view or table>.<column>: a bare column name names no relation.
            table, column = target.table, target.name
            if not table:
                return [f"COMMENT ON COLUMN {column}: write it as <view or table>.{column}"]
            if table not in known:
                return [f"COMMENT ON COLUMN {table}.{column}: no such view or table {table!r}"]
            if column not in known[table]:
                return [f"COMMENT ON COLUMN {table}.{column}: no such column"]
        return []
    if isinstance(statement, exp.Drop) and str(statement.args.get("kind")).upper() == "VIEW":
        return []
    return [f"unsupported statement (sql/ holds views and comments): {statement.sql(DIALECT)[:80]}"]


def list_views(con: duckdb.DuckDBPyConnection) -> list[ViewInfo]:
    """Every user view of the connection's database with its comment and columns, by name."""
    views = con.execute(
        "SELECT view_name, comment FROM duckdb_views() "
        "WHERE NOT internal AND database_name = current_database() ORDER BY view_name"
    ).fetchall()
    infos = []
    for view_name, comment in views:
        columns = con.execute(
            "SELECT column_name, data_type, comment FROM duckdb_columns() "
            "WHERE table_name = ? AND database_name = current_database() ORDER BY column_index",
            [view_name],
        ).fetchall()
        infos.append(
            ViewInfo(view_name, comment, tuple(ViewColumn(*column) for column in columns))
        )
    return infos


def is_scalar_type(data_type: str) -> bool:
    """True for types every BI tool can chart (no lists, arrays, structs, maps, unions)."""
    upper = data_type.upper()
    return not any(marker in upper for marker in NESTED_TYPE_MARKERS)


def is_bi_type(data_type: str) -> bool:
    """True for a flat scalar type with a stable meaning in every BI driver and in Parquet:
    not nested, not HUGEINT / UHUGEINT, not DECIMAL."""
    upper = data_type.upper()
    return is_scalar_type(data_type) and not any(m in upper for m in UNSTABLE_TYPE_MARKERS)


def bi_problems(views: Iterable[ViewInfo]) -> list[str]:
    """What keeps views from being BI-ready: a view or a column without a COMMENT, a column
    whose type is nested, HUGEINT or DECIMAL. Empty when every view is ready."""
    problems: list[str] = []
    for view in views:
        if not (view.comment and view.comment.strip()):
            problems.append(f"view {view.name}: no COMMENT ON VIEW")
        for column in view.columns:
            if not (column.comment and column.comment.strip()):
                problems.append(f"view {view.name}: column {column.name} has no COMMENT")
            if not is_bi_type(column.data_type):
                problems.append(
                    f"view {view.name}: column {column.name} has type {column.data_type} "
                    "(cast sums to BIGINT, ratios to DOUBLE; no nested types)"
                )
    return problems
