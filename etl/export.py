"""The warehouse as Parquet files that other engines read directly (`etl export --parquet DIR`,
etl/cli/export.py).

Layout of DIR (Hive style, so Spark, Trino, Athena, ClickHouse and DuckDB need no loader):

    manifest.json                         row counts, columns, partitions, source ingest
    tables/<table>/data_0.parquet         small tables, one file each
    tables/<table>/benchmark=../mode=../model=../data_0.parquet
                                          per-result tables, partitioned by run keys
    views/parquet/<view>/data_0.parquet   every view, materialised
    views/<dialect>/<view>.sql            every view's SQL for duckdb, trino and spark: one
                                          statement each, runnable as written (see below)
    ddl/<dialect>/<table>.sql             CREATE TABLE over the table's Parquet directory for
                                          spark (USING parquet) and trino (Hive connector)

A view's Spark / Trino SQL is sqlglot's transpilation of the DuckDB view unless
sql/dialect/<dialect>/<view>.sql holds a hand-written form (where no portable SQL exists,
e.g. JSON functions). Trino files end without `;` (its client API, JDBC and the Python
client reject one); DuckDB and Spark files end with one (both parsers accept it).
docs/EXPORT.md is the guide: register the tables, then create the views in view_order.

The database is opened read-only (it works next to a BI tool holding the file) and the
export is written to a temporary directory renamed into place at the end, so DIR is either
the previous export or a complete new one, never half of each."""

from __future__ import annotations

import datetime as dt
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import orjson
import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, SqlglotError

from etl import __version__
from etl.connection import open_warehouse
from etl.errors import EtlError
from etl.schema import SQL_DIR, sql_files

MANIFEST_NAME = "manifest.json"
EXPORT_FORMAT = "clinseek-warehouse-parquet/1"
PARTITION_COLUMNS: tuple[str, ...] = ("benchmark", "mode", "model")
# Tables with one or more rows per result: big, and always filtered by run keys, so they are
# split into benchmark / mode / model directories that engines prune without reading.
PARTITIONED_TABLES: frozenset[str] = frozenset(
    {"results", "messages", "tool_calls", "images", "question_scores", "call_failures",
     "result_checks"}
)
SOURCE_DIALECT = "duckdb"
TARGET_DIALECTS: tuple[str, ...] = ("trino", "spark")
# Dialects whose clients reject a statement ending in ";".
NO_TERMINATOR_DIALECTS: frozenset[str] = frozenset({"trino"})
# The oldest engine versions the exported SQL runs on, and why (stated in the manifest and
# docs/EXPORT.md). Spark 4.0: LISTAGG ... WITHIN GROUP (string_agg with ORDER BY; Spark 3.5
# has none). Trino 356: LISTAGG; every other function the views use is older
# (tests/export/test_export_engines.py checks the list).
MIN_ENGINE_VERSIONS: dict[str, dict[str, str]] = {
    "spark": {"version": "4.0", "why": "LISTAGG ... WITHIN GROUP (string aggregation)"},
    "trino": {"version": "356", "why": "LISTAGG ... WITHIN GROUP (string aggregation); "
              "tables through the Hive connector (external_location, partitioned_by)"},
}
# Table column types per dialect. DuckDB's TIMESTAMP has no time zone: Spark's is
# TIMESTAMP_NTZ (its TIMESTAMP would shift the value by the session time zone).
DDL_TYPES: dict[str, dict[str, str]] = {
    "spark": {"VARCHAR": "STRING", "BIGINT": "BIGINT", "INTEGER": "INT", "SMALLINT": "SMALLINT",
              "TINYINT": "TINYINT", "DOUBLE": "DOUBLE", "FLOAT": "FLOAT", "BOOLEAN": "BOOLEAN",
              "DATE": "DATE", "TIMESTAMP": "TIMESTAMP_NTZ",
              "TIMESTAMP WITH TIME ZONE": "TIMESTAMP", "BLOB": "BINARY"},
    "trino": {"VARCHAR": "varchar", "BIGINT": "bigint", "INTEGER": "integer",
              "SMALLINT": "smallint", "TINYINT": "tinyint", "DOUBLE": "double", "FLOAT": "real",
              "BOOLEAN": "boolean", "DATE": "date", "TIMESTAMP": "timestamp",
              "TIMESTAMP WITH TIME ZONE": "timestamp", "BLOB": "varbinary"},
}
DATA_FILE = "data_0.parquet"
# Parquet has no 128-bit integer; DuckDB would write HUGEINT (what sum(BIGINT) returns) as
# DOUBLE. Counts fit BIGINT, and an engine reading an integer column should see an integer.
NARROWED_TYPES: dict[str, str] = {"HUGEINT": "BIGINT", "UHUGEINT": "BIGINT"}


class ExportError(EtlError):
    """The export could not be written; the message says why."""


@dataclass(frozen=True)
class Column:
    name: str
    data_type: str
    comment: str | None

    def exported_type(self) -> str:
        return NARROWED_TYPES.get(self.data_type, self.data_type)


@dataclass(frozen=True)
class ViewSource:
    """A view's CREATE statement, parsed, and where the text came from."""

    name: str
    statement: exp.Create
    origin: str  # "sql/<file>" or "database" (the text DuckDB stored)


def _quote(identifier: str) -> str:
    # Only names of our own tables, views and columns (read from the catalog) go through
    # here, never values from the data.
    return '"' + identifier.replace('"', '""') + '"'


def _columns(con: duckdb.DuckDBPyConnection, relation: str) -> list[Column]:
    rows = con.execute(
        "SELECT column_name, data_type, comment FROM duckdb_columns() "
        "WHERE table_name = ? AND database_name = current_database() ORDER BY column_index",
        [relation],
    ).fetchall()
    return [Column(*row) for row in rows]


def _names(con: duckdb.DuckDBPyConnection, catalog_function: str, name_column: str) -> list[str]:
    rows = con.execute(
        f"SELECT {name_column} FROM {catalog_function}() "
        "WHERE NOT internal AND database_name = current_database() "
        f"ORDER BY {name_column}"
    ).fetchall()
    return [row[0] for row in rows]


def user_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The warehouse's tables, by name."""
    return _names(con, "duckdb_tables", "table_name")


def user_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The warehouse's views, by name."""
    return _names(con, "duckdb_views", "view_name")


def _select_list(columns: Iterable[Column], alias: str) -> list[str]:
    items = []
    for column in columns:
        ref = f"{alias}.{_quote(column.name)}"
        if column.exported_type() != column.data_type:
            ref = f"CAST({ref} AS {column.exported_type()}) AS {_quote(column.name)}"
        items.append(ref)
    return items


def _table_query(
    table: str, columns: list[Column], partition_by: tuple[str, ...], runs_available: bool
) -> str:
    """SELECT for one table; partition columns the table lacks come from its run."""
    names = {column.name for column in columns}
    select = _select_list(columns, "t")
    joins = ""
    missing = [name for name in partition_by if name not in names]
    if missing:
        if not runs_available or "run_id" not in names:
            raise ExportError(f"table {table} has no run_id to find its {', '.join(missing)}")
        # runs.run_id is the primary key: one run per row, so the join never multiplies rows.
        select += [f"r.{_quote(name)}" for name in missing]
        joins = " LEFT JOIN runs AS r ON r.run_id = t.run_id"
    return f"SELECT {', '.join(select)} FROM {_quote(table)} AS t{joins}"


def _count(con: duckdb.DuckDBPyConnection, relation: str) -> int:
    return con.execute(f"SELECT count(*) FROM {_quote(relation)}").fetchall()[0][0]


def _parquet_rows(con: duckdb.DuckDBPyConnection, directory: Path) -> int:
    files = sorted(str(path) for path in directory.rglob("*.parquet"))
    if not files:
        return 0
    return con.execute("SELECT count(*) FROM read_parquet(?)", [files]).fetchall()[0][0]


def _dir_bytes(directory: Path) -> tuple[int, int]:
    files = [path for path in directory.rglob("*") if path.is_file()]
    return len(files), sum(path.stat().st_size for path in files)


def _column_entries(columns: Iterable[Column]) -> list[dict[str, Any]]:
    return [
        {"name": c.name, "type": c.exported_type(), "comment": c.comment} for c in columns
    ]


def export_table(
    con: duckdb.DuckDBPyConnection, table: str, target: Path, runs_available: bool
) -> dict[str, Any]:
    """Write one table under `target` (a directory) and return its manifest entry."""
    columns = _columns(con, table)
    rows = _count(con, table)
    partition_by = PARTITION_COLUMNS if table in PARTITIONED_TABLES and rows else ()
    query = _table_query(table, columns, partition_by, runs_available)
    relation = con.sql(query)
    if partition_by:
        relation.write_parquet(
            str(target), compression="zstd", partition_by=list(partition_by), overwrite=True
        )
    else:
        # An empty partitioned table is written as one empty file: a directory without files
        # would make most engines fail instead of returning no rows.
        target.mkdir(parents=True)
        relation.write_parquet(str(target / DATA_FILE), compression="zstd")
    written = _parquet_rows(con, target)
    if written != rows:
        raise ExportError(f"table {table}: {rows} rows in the database, {written} written")
    exported_columns = list(columns)
    names = {c.name for c in columns}
    for name in partition_by:
        if name not in names:
            exported_columns.append(Column(name, "VARCHAR", f"Partition key: {name} of the run."))
    n_files, n_bytes = _dir_bytes(target)
    return {
        "path": target.as_posix(),
        "rows": rows,
        "partition_by": list(partition_by),
        "files": n_files,
        "bytes": n_bytes,
        "columns": _column_entries(exported_columns),
    }


def _string_literal(text: str, dialect: str) -> str:
    # Spark reads backslash escapes inside '...' and joins adjacent literals ('a''b' is "ab"),
    # so quotes are escaped with a backslash there; Trino doubles them (standard SQL).
    if dialect == "spark":
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return "'" + text.replace("'", "''") + "'"


def _ddl_name(identifier: str, dialect: str) -> str:
    if dialect == "spark":
        return "`" + identifier.replace("`", "``") + "`"
    return _quote(identifier)


def table_ddl(
    table: str, entry: dict[str, Any], comment: str | None, location: str, dialect: str
) -> str:
    """CREATE TABLE for `dialect` over the exported Parquet directory at `location` (a URI):
    the manifest entry's columns with their comments, partition columns last (Hive and
    Trino require it; the files do not hold them, the directory names do)."""
    types = DDL_TYPES[dialect]
    partition_by = entry["partition_by"]
    columns = [c for c in entry["columns"] if c["name"] not in partition_by]
    columns += [c for name in partition_by for c in entry["columns"] if c["name"] == name]
    lines = []
    for column in columns:
        if column["type"] not in types:
            raise ExportError(f"table {table}: column {column['name']} has type "
                              f"{column['type']}, which has no {dialect} equivalent here")
        line = f"    {_ddl_name(column['name'], dialect)} {types[column['type']]}"
        if column["comment"]:
            line += f" COMMENT {_string_literal(column['comment'], dialect)}"
        lines.append(line)
    head = f"CREATE TABLE {_ddl_name(table, dialect)} (\n" + ",\n".join(lines) + "\n)"
    table_comment = f"COMMENT {_string_literal(comment, dialect)}" if comment else ""
    if dialect == "spark":
        clauses = ["USING parquet"]
        if partition_by:
            names = ", ".join(_ddl_name(name, dialect) for name in partition_by)
            clauses.append(f"PARTITIONED BY ({names})")
        clauses.append(f"LOCATION {_string_literal(location, dialect)}")
        if table_comment:
            clauses.append(table_comment)
        return head + "\n" + "\n".join(clauses) + ";\n"
    properties = ["    format = 'PARQUET'",
                  f"    external_location = {_string_literal(location, dialect)}"]
    if partition_by:
        names = ", ".join(_string_literal(name, dialect) for name in partition_by)
        properties.append(f"    partitioned_by = ARRAY[{names}]")
    comment_line = f"\n{table_comment}" if table_comment else ""
    return head + comment_line + "\nWITH (\n" + ",\n".join(properties) + "\n)\n"


def partition_sync_statement(table: str, dialect: str) -> str:
    """What makes the engine see the partition directories of a table just created over
    existing files (neither lists them by itself)."""
    if dialect == "spark":
        return f"MSCK REPAIR TABLE {_ddl_name(table, dialect)}"
    # The Hive connector's procedure takes the schema as a constant: {schema} is to be filled
    # in with the schema the tables were created in (see docs/EXPORT.md).
    return ("CALL system.sync_partition_metadata('{schema}', "
            f"{_string_literal(table, dialect)}, 'FULL')")


def export_table_ddl(
    con: duckdb.DuckDBPyConnection, root: Path, entries: dict[str, Any], location_base: str
) -> None:
    """Write ddl/<dialect>/<table>.sql for every table and note them in its entry."""
    comments = dict(con.execute(
        "SELECT table_name, comment FROM duckdb_tables() "
        "WHERE NOT internal AND database_name = current_database()").fetchall())
    for table, entry in entries.items():
        location = f"{location_base.rstrip('/')}/{entry['path']}"
        entry["location"] = location
        entry["comment"] = comments.get(table)
        entry["ddl"] = {}
        for dialect in TARGET_DIALECTS:
            path = root / "ddl" / dialect / f"{table}.sql"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(table_ddl(table, entry, comments.get(table), location, dialect),
                            encoding="utf-8")
            entry["ddl"][dialect] = path.relative_to(root).as_posix()
        entry["partition_sync"] = (
            {dialect: partition_sync_statement(table, dialect) for dialect in TARGET_DIALECTS}
            if entry["partition_by"] else {}
        )


def _is_view(statement: exp.Expression | None) -> bool:
    return isinstance(statement, exp.Create) and str(statement.kind).upper() == "VIEW"


def _sql_file_views(sql_dir: Path) -> dict[str, ViewSource]:
    sources: dict[str, ViewSource] = {}
    for path in sql_files(sql_dir):
        try:
            statements = sqlglot.parse(path.read_text(encoding="utf-8"), read=SOURCE_DIALECT)
        except ParseError:
            continue  # the view is then taken from the database's stored text
        for statement in statements:
            if _is_view(statement):
                assert isinstance(statement, exp.Create)
                name = statement.this.name
                sources[name] = ViewSource(name, statement, f"sql/{path.name}")
    return sources


def _undo_duckdb_rewrites(node: exp.Expression) -> exp.Expression:
    # DuckDB stores count(*) as count_star(), a name no other engine knows.
    if isinstance(node, exp.Anonymous) and node.name.lower() == "count_star":
        return exp.Count(this=exp.Star())
    return node


def view_sources(
    con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR
) -> tuple[list[ViewSource], list[str]]:
    """Each view of the database with its SQL, in dependency order (a view after the views it
    reads). The sql/ file text is preferred (it is what people wrote and read); when a view is
    not in sql/ or its columns there differ from the database's (a database built by another
    version), the text DuckDB stored is used. Returns (sources, problems)."""
    from_files = _sql_file_views(sql_dir)
    stored = dict(
        con.execute(
            "SELECT view_name, sql FROM duckdb_views() "
            "WHERE NOT internal AND database_name = current_database()"
        ).fetchall()
    )
    problems: list[str] = []
    chosen: dict[str, ViewSource] = {}
    for name in sorted(stored):
        db_columns = [column.name for column in _columns(con, name)]
        candidate = from_files.get(name)
        if candidate is not None and candidate.statement.expression.named_selects == db_columns:
            chosen[name] = candidate
            continue
        try:
            statement = sqlglot.parse_one(stored[name], read=SOURCE_DIALECT)
        except ParseError as error:
            problems.append(f"view {name}: sqlglot cannot parse its SQL: {error}")
            continue
        if not _is_view(statement):
            problems.append(f"view {name}: stored SQL is not a CREATE VIEW")
            continue
        statement = statement.transform(_undo_duckdb_rewrites)
        statement.set("replace", True)
        assert isinstance(statement, exp.Create)
        chosen[name] = ViewSource(name, statement, "database")
    return _dependency_order(chosen), problems


def _dependency_order(sources: dict[str, ViewSource]) -> list[ViewSource]:
    reads: dict[str, set[str]] = {}
    for name, source in sources.items():
        ctes = {cte.alias_or_name for cte in source.statement.find_all(exp.CTE)}
        tables = {table.name for table in source.statement.expression.find_all(exp.Table)}
        reads[name] = {t for t in tables - ctes if t in sources and t != name}
    ordered: list[ViewSource] = []
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in done or name in path:  # a cycle cannot exist in DuckDB; guard anyway
            return
        for dependency in sorted(reads[name]):
            visit(dependency, (*path, name))
        done.add(name)
        ordered.append(sources[name])

    for name in sorted(sources):
        visit(name, ())
    return ordered


def dialect_override_path(name: str, dialect: str, sql_dir: Path = SQL_DIR) -> Path:
    """Where a hand-written `dialect` form of view `name` lives (it may not exist)."""
    return sql_dir / "dialect" / dialect / f"{name}.sql"


def read_override(path: Path, name: str, dialect: str) -> exp.Create:
    """Parse a dialect override: exactly one CREATE VIEW `name` in `dialect`; raises
    ExportError naming the file otherwise."""
    try:
        statements = [s for s in sqlglot.parse(path.read_text(encoding="utf-8"), read=dialect)
                      if s is not None]
    except ParseError as error:
        raise ExportError(f"{path}: sqlglot cannot parse it as {dialect}: {error}") from error
    if len(statements) != 1 or not _is_view(statements[0]):
        raise ExportError(f"{path}: must hold exactly one CREATE VIEW statement")
    statement = statements[0]
    assert isinstance(statement, exp.Create)
    if statement.this.name != name:
        raise ExportError(f"{path}: creates view {statement.this.name}, not {name}")
    return statement


def _sql_header(source: ViewSource, dialect: str, how: str) -> str:
    return (
        f"-- View {source.name} for {dialect}, {how}.\n"
        "-- Reads the tables of this export's tables/ directory (registered with\n"
        "-- ddl/<dialect>/<table>.sql); create the views in manifest.json's view_order.\n"
    )


def _terminated(sql: str, dialect: str) -> str:
    sql = sql.strip().rstrip(";").rstrip()
    return sql + ("\n" if dialect in NO_TERMINATOR_DIALECTS else ";\n")


def _plain_ctes(statement: exp.Expression) -> exp.Expression:
    """The statement without DuckDB's `AS MATERIALIZED` on its CTEs: a planning hint (compute
    the CTE once) that Spark and Trino do not have and sqlglot writes as it is; the CTE's
    rows are the same without it."""
    plain = statement.copy()
    for cte in plain.find_all(exp.CTE):
        cte.set("materialized", None)
    return plain


def transpile_view(source: ViewSource, dialect: str) -> str:
    """The view's CREATE statement in `dialect`; raises SqlglotError when sqlglot knows the
    result would not mean the same thing there."""
    statement = source.statement if dialect == SOURCE_DIALECT else _plain_ctes(
        source.statement)
    sql = statement.sql(dialect=dialect, pretty=True, unsupported_level=ErrorLevel.RAISE)
    how = (f"transpiled by sqlglot {sqlglot.__version__} from {source.origin} (DuckDB)"
           if dialect != SOURCE_DIALECT else f"from {source.origin}")
    return _sql_header(source, dialect, how) + _terminated(sql, dialect)


def view_sql(source: ViewSource, dialect: str, db_columns: list[str],
             sql_dir: Path = SQL_DIR) -> tuple[str, str]:
    """(text, origin) of the view's statement in `dialect`: the hand-written override in
    sql/dialect/<dialect>/ when there is one and the view comes from sql/ (its columns are
    checked against the database's), else the transpilation."""
    path = dialect_override_path(source.name, dialect, sql_dir)
    if dialect == SOURCE_DIALECT or source.origin == "database" or not path.is_file():
        return transpile_view(source, dialect), source.origin
    statement = read_override(path, source.name, dialect)
    if statement.expression.named_selects != db_columns:
        raise ExportError(f"{path}: columns {statement.expression.named_selects} differ from "
                          f"view {source.name}'s {db_columns}")
    origin = path.relative_to(sql_dir.parent).as_posix()
    text = path.read_text(encoding="utf-8")
    return _sql_header(source, dialect, f"hand-written in {origin}") + _terminated(
        text, dialect), origin


def export_views(
    con: duckdb.DuckDBPyConnection, root: Path, sql_dir: Path = SQL_DIR
) -> tuple[dict[str, Any], list[str]]:
    """Materialise every view as Parquet and write its SQL per dialect; returns the manifest
    entries (in dependency order) and the problems met (views not transpiled)."""
    sources, problems = view_sources(con, sql_dir)
    entries: dict[str, Any] = {}
    for source in sources:
        name = source.name
        columns = _columns(con, name)
        target = root / "views" / "parquet" / name
        target.mkdir(parents=True)
        query = f"SELECT {', '.join(_select_list(columns, 'v'))} FROM {_quote(name)} AS v"
        con.sql(query).write_parquet(str(target / DATA_FILE), compression="zstd")
        sql_paths: dict[str, str] = {}
        sql_origins: dict[str, str] = {}
        db_columns = [column.name for column in columns]
        for dialect in (SOURCE_DIALECT, *TARGET_DIALECTS):
            try:
                try:
                    text, sql_origins[dialect] = view_sql(source, dialect, db_columns, sql_dir)
                except ExportError as error:
                    # A stale override (the view changed, its dialect form did not): said,
                    # and the transpilation written in its place.
                    problems.append(f"view {name}: override not used: {error}")
                    text, sql_origins[dialect] = transpile_view(source, dialect), source.origin
            except SqlglotError as error:
                problems.append(f"view {name}: not transpiled to {dialect}: {error}")
                continue
            sql_path = root / "views" / dialect / f"{name}.sql"
            sql_path.parent.mkdir(parents=True, exist_ok=True)
            sql_path.write_text(text, encoding="utf-8")
            sql_paths[dialect] = sql_path.relative_to(root).as_posix()
        comment = con.execute(
            "SELECT comment FROM duckdb_views() WHERE view_name = ? "
            "AND database_name = current_database()",
            [name],
        ).fetchall()[0][0]
        entries[name] = {
            "path": target.relative_to(root).as_posix(),
            "rows": _parquet_rows(con, target),
            "comment": comment,
            "sql_origin": source.origin,
            "sql": sql_paths,
            "sql_origins": sql_origins,
            "columns": _column_entries(columns),
        }
    return entries, problems


def _source_ingest(con: duckdb.DuckDBPyConnection) -> dict[str, Any] | None:
    if "ingests" not in user_tables(con):
        return None
    cursor = con.execute("SELECT * FROM ingests ORDER BY finished_at DESC NULLS LAST LIMIT 1")
    names = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    if not rows:
        return None
    return {
        name: value.isoformat() if isinstance(value, dt.datetime) else value
        for name, value in zip(names, rows[0], strict=True)
    }


def _write_export(con: duckdb.DuckDBPyConnection, db: Path, root: Path,
                  sql_dir: Path, location_base: str) -> dict[str, Any]:
    tables = user_tables(con)
    runs_available = "runs" in tables
    table_entries: dict[str, Any] = {}
    for table in tables:
        entry = export_table(con, table, root / "tables" / table, runs_available)
        entry["path"] = Path(entry["path"]).relative_to(root).as_posix()
        table_entries[table] = entry
    export_table_ddl(con, root, table_entries, location_base)
    view_entries, problems = export_views(con, root, sql_dir)
    manifest = {
        "format": EXPORT_FORMAT,
        "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "tool_version": __version__,
        "duckdb_version": duckdb.__version__,
        "source": {
            "database": str(db),
            "database_bytes": db.stat().st_size,
            "ingest": _source_ingest(con),
        },
        "partitioning": {
            "style": "hive",
            "columns": list(PARTITION_COLUMNS),
            "null_value": "__HIVE_DEFAULT_PARTITION__",
            "note": "Partition values are percent-encoded in directory names; partition "
            "columns are not repeated inside the files.",
        },
        "engines": {
            dialect: {"min_version": MIN_ENGINE_VERSIONS[dialect]["version"],
                      "why": MIN_ENGINE_VERSIONS[dialect]["why"]}
            for dialect in TARGET_DIALECTS
        },
        "table_location": location_base,
        "setup": [
            "Create every table with tables[<table>].ddl[<dialect>] (a persistent table: "
            "Spark views cannot read temporary views).",
            "Run tables[<table>].partition_sync[<dialect>] for each partitioned table "
            "(Trino: put the schema's name in place of {schema}).",
            "Create the views with views[<view>].sql[<dialect>] in view_order.",
        ],
        "tables": table_entries,
        "views": view_entries,
        "view_order": list(view_entries),
        "problems": problems,
    }
    (root / MANIFEST_NAME).write_bytes(
        orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    )
    return manifest


def _replace_directory(new: Path, target: Path) -> None:
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    if target.exists():
        target.rename(old)
    new.rename(target)
    if old.exists():
        shutil.rmtree(old)


def _check_target(out: Path, replace: bool) -> None:
    if not out.exists():
        return
    if not out.is_dir():
        raise ExportError(f"{out} exists and is not a directory")
    if not any(out.iterdir()):
        return
    if not (out / MANIFEST_NAME).is_file():
        # Never delete a directory this command did not write.
        raise ExportError(f"{out} is not empty and holds no {MANIFEST_NAME}; "
                          "choose a new or empty directory")
    if not replace:
        raise ExportError(f"{out} already holds an export; pass --replace to overwrite it")


def export_parquet(
    db: Path, out: Path, *, replace: bool = False, sql_dir: Path = SQL_DIR,
    location: str | None = None,
) -> dict[str, Any]:
    """Export the warehouse `db` to `out` (see the module docstring); returns the manifest.
    `location` is the URI the export will be read from by Spark / Trino (the tables' DDL
    points there); by default `out` itself as a file: URI.
    Raises ExportError with a readable message when it cannot."""
    if not db.exists():  # before the target is looked at
        raise ExportError(f"database {db} not found; build it with `etl ingest ROOT --db {db}`")
    _check_target(out, replace)
    out.parent.mkdir(parents=True, exist_ok=True)
    temp = out.with_name(f".{out.name}.partial-{os.getpid()}")
    if temp.exists():
        shutil.rmtree(temp)
    temp.mkdir()
    try:
        # The one directory the connection may write in: the export under way, by its
        # absolute path (DuckDB checks a file's path against it as written).
        root = temp.resolve()
        con = open_warehouse(db, files_in=root, own_queries_only=True)
        try:
            location_base = location or out.resolve().as_uri()
            manifest = _write_export(con, db, root, sql_dir, location_base)
        except duckdb.Error as error:
            raise ExportError(f"export of {db} failed: {error}") from error
        finally:
            con.close()
        if out.exists() and not any(out.iterdir()):
            out.rmdir()
        _replace_directory(temp, out)
    finally:
        if temp.exists():
            shutil.rmtree(temp)
    return manifest


def _megabytes(n_bytes: int) -> str:
    return f"{n_bytes / 1e6:.1f} MB"


def summary_lines(manifest: dict[str, Any], out: Path) -> list[str]:
    """What the command prints: counts, sizes against the database, problems."""
    tables = manifest["tables"]
    views = manifest["views"]
    export_bytes = sum(t["bytes"] for t in tables.values())
    _, total_bytes = _dir_bytes(out)
    db_bytes = manifest["source"]["database_bytes"]
    ratio = total_bytes / db_bytes if db_bytes else 0.0
    lines = [
        f"exported {len(tables)} tables ({sum(t['rows'] for t in tables.values())} rows) and "
        f"{len(views)} views to {out}",
        f"  size: {_megabytes(total_bytes)} on disk (tables {_megabytes(export_bytes)}), "
        f"database {_megabytes(db_bytes)} ({ratio:.0%} of it)",
        f"  view SQL for {', '.join((SOURCE_DIALECT, *TARGET_DIALECTS))} under "
        f"{out / 'views'}; manifest {out / MANIFEST_NAME}",
    ]
    lines += [f"  warning: {problem}" for problem in manifest["problems"]]
    return lines
