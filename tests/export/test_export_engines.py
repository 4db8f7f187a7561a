"""The Parquet export on the engines it is for, as written.

Spark: a local[2] Spark session (PySpark from the dev extra, the machine's Java) registers
every exported table from its exported CREATE TABLE file and creates every view from its
exported Spark file exactly as written, in the manifest's order. Each view's query, as
written, then runs over its inputs as DuckDB computed them (every other view a table of
DuckDB's rows) and its rows are compared with the same view in DuckDB (keys exact, numbers
to 1e-9); the leaderboard is also compared through its whole chain of registered views.

Trino (no server here): every exported Trino file parses with Trino's own grammar
(trino-query-parser: Trino's ANTLR grammar compiled for Python) as one statement, and calls
only functions Trino has.

Views are enumerated from the export's manifest, so a view added to sql/ is covered without
touching this file.

Inspect AI logs: the export of a warehouse of Inspect logs, in the same Spark session (a
database of its own), gives the boards DuckDB gives: the default board, every scorer's, and
the clustered one, through their whole chain of views registered from their files (every
view file was registered and checked above; here only the boards' chain is)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
import sqlglot
from sqlglot import exp

from tests.export.engines import (
    export_parquet_of,
    needed_for,
    register,
    register_tables,
    row_problems,
)

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"
DIALECT_DIR = SQL_DIR / "dialect"
FLOAT_TYPES = {"DOUBLE", "FLOAT", "REAL"}

# Functions Trino has (https://trino.io/docs/current/functions/list.html), limited to the
# ones a warehouse view plausibly uses; a view calling anything else fails the test until it
# is checked against the Trino docs and added here (with the version it appeared in when
# that is newer than the manifest's minimum).
TRINO_FUNCTIONS = frozenset({
    "abs", "approx_distinct", "array_agg", "array_distinct", "array_join", "array_sort",
    "avg", "bool_and", "bool_or", "cardinality", "ceil", "ceiling", "coalesce", "concat",
    "concat_ws", "contains", "count", "count_if", "date_diff", "date_trunc", "dense_rank",
    "element_at", "every", "exp", "first_value", "floor", "format", "from_iso8601_timestamp",
    "greatest", "if", "json_array_length", "json_extract", "json_extract_scalar",
    "json_format", "json_parse", "lag", "last_value", "lead", "least", "length", "ln",
    "log10", "lower", "lpad", "ltrim", "max", "max_by", "min", "min_by", "mod", "nullif",
    "power", "rank", "regexp_extract", "regexp_like", "regexp_replace", "replace",
    "reverse", "round", "row_number", "rpad", "rtrim", "sign", "split", "split_part",
    "sqrt", "starts_with", "stddev", "stddev_pop", "stddev_samp", "strpos", "substr",
    "substring", "sum", "to_iso8601", "trim", "truncate", "try", "upper", "variance",
    "var_pop", "var_samp",
})


def _view_columns(con: duckdb.DuckDBPyConnection, view: str) -> list[str]:
    rows = con.execute("SELECT column_name FROM duckdb_columns() WHERE table_name = ? "
                       "AND database_name = current_database() ORDER BY column_index",
                       [view]).fetchall()
    return [row[0] for row in rows]


def test_every_dialect_override_has_the_duckdb_views_columns(db) -> None:
    overrides = sorted(DIALECT_DIR.glob("*/*.sql"))
    assert overrides, "sql/dialect/ holds the hand-written forms; none found"
    for path in overrides:
        dialect, view = path.parent.name, path.stem
        statements = [s for s in sqlglot.parse(path.read_text(), read=dialect) if s]
        assert len(statements) == 1, f"{path}: one statement per override"
        statement = statements[0]
        assert isinstance(statement, exp.Create) and statement.kind == "VIEW", path
        assert statement.this.name == view, f"{path}: file name and view name differ"
        want = _view_columns(db, view)
        assert want, f"{path}: no DuckDB view {view}"
        assert statement.expression.named_selects == want, path


def test_manifest_states_engines_and_every_table_has_ddl(exported: dict) -> None:
    out, manifest = exported["out"], exported["manifest"]
    assert manifest["engines"]["spark"]["min_version"] == "4.0"
    assert manifest["engines"]["trino"]["min_version"]
    for table, entry in manifest["tables"].items():
        assert set(entry["ddl"]) == {"spark", "trino"}, table
        assert entry["location"].endswith(f"/tables/{table}"), table
        for path in entry["ddl"].values():
            assert (out / path).is_file(), path
    for view in manifest["view_order"]:
        text = (out / manifest["views"][view]["sql"]["trino"]).read_text()
        assert not text.rstrip().endswith(";"), f"{view}: Trino clients reject a final ;"


# -- Trino: the grammar and the function list ------------------------------------------------

def _trino_tree(text: str, what: str) -> Any:
    from trino_query_parser import TrinoSyntaxError, parse_statement_tree

    try:
        # The grammar's entry rule is singleStatement: one statement, then end of input.
        return parse_statement_tree(text)
    except TrinoSyntaxError as error:
        pytest.fail(f"{what}: not one Trino statement: {error}")


def _tokens(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [token for value in node.values() for token in _tokens(value)]
    return [token for item in node for token in _tokens(item)]


def _trino_function_names(node: Any, found: set[str]) -> set[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "function_call":
                found.add("".join(_tokens(value[0]["qualified_name"])).lower())
            _trino_function_names(value, found)
    elif isinstance(node, list):
        for item in node:
            _trino_function_names(item, found)
    return found


def test_trino_files_parse_with_the_trino_grammar_and_use_trino_functions(
        exported: dict) -> None:
    out, manifest = exported["out"], exported["manifest"]
    unknown: dict[str, set[str]] = {}
    used: set[str] = set()
    for view in manifest["view_order"]:
        text = (out / manifest["views"][view]["sql"]["trino"]).read_text()
        tree = _trino_tree(text, view)
        names = _trino_function_names(tree, set())
        used |= names
        if names - TRINO_FUNCTIONS:
            unknown[view] = names - TRINO_FUNCTIONS
    assert not unknown, f"functions Trino does not have (or not checked yet): {unknown}"
    assert {"count", "sum"} <= used  # the walk finds function calls at all
    for table, entry in manifest["tables"].items():
        text = (out / entry["ddl"]["trino"]).read_text()
        _trino_tree(text, f"table {table}")
        create = sqlglot.parse_one(text, read="trino")
        columns = [c.name for c in create.this.expressions if isinstance(c, exp.ColumnDef)]
        want = [c["name"] for c in entry["columns"]]
        assert sorted(columns) == sorted(want), table
        # Hive connector: partition columns last, in partitioned_by order.
        n_parts = len(entry["partition_by"])
        assert columns[len(columns) - n_parts:] == entry["partition_by"], table
        if n_parts:
            assert "partitioned_by = ARRAY[" in text, table
        assert f"external_location = '{entry['location']}'" in text, table


def test_trino_grammar_rejects_what_trino_rejects() -> None:
    # The check above is only as good as the grammar: it must refuse a final ";" and
    # LISTAGG ... FILTER (Trino 422's grammar, the one this package compiles).
    from trino_query_parser import TrinoSyntaxError, parse_statement_tree

    parse_statement_tree("SELECT 1")
    for bad in ["SELECT 1;", "SELECT listagg(x, ',') WITHIN GROUP (ORDER BY x) "
                "FILTER (WHERE y) FROM t"]:
        with pytest.raises(TrinoSyntaxError):
            parse_statement_tree(bad)


# -- Spark -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def spark_catalog(spark, exported: dict) -> dict[str, Any]:
    """The export registered in Spark the way docs/EXPORT.md says: each table's DDL file,
    its partition sync, then each view's file in view_order, every file as written."""
    out, manifest = exported["out"], exported["manifest"]
    register_tables(spark, exported)
    failed = {}
    for view in manifest["view_order"]:
        try:
            spark.sql((out / manifest["views"][view]["sql"]["spark"]).read_text())
        except Exception as error:  # noqa: BLE001 - every failing view is reported at once
            failed[view] = str(error).splitlines()[0][:300]
    return {"failed": failed}


def test_spark_registers_every_table_from_its_ddl(spark, spark_catalog, exported, db) -> None:
    manifest = exported["manifest"]
    for table, entry in manifest["tables"].items():
        want_rows = db.execute(f'SELECT count(*) FROM "{table}"').fetchall()[0][0]
        assert spark.table(table).count() == want_rows, table
        got_table = spark.catalog.getTable(table)
        want_comment = db.execute("SELECT comment FROM duckdb_tables() WHERE table_name = ? "
                                  "AND database_name = current_database()",
                                  [table]).fetchall()[0][0]
        assert got_table.description == want_comment, table
        got = {c.name: c.description for c in spark.catalog.listColumns(table)}
        assert got == {c["name"]: c["comment"] for c in entry["columns"]}, table
        parts = [c.name for c in spark.catalog.listColumns(table) if c.isPartition]
        assert parts == entry["partition_by"], table


CREATE_VIEW = re.compile(r"^CREATE OR REPLACE VIEW (\S+) AS\b", re.MULTILINE)


@pytest.fixture(scope="module")
def views_as_tables(spark, exported: dict, demo_db: Path,
                    tmp_path_factory: pytest.TempPathFactory) -> str:
    """A Spark database in which every exported table is registered from its DDL file and
    every view is a table holding DuckDB's rows of that view (exported the way tables are):
    each view's query can then run over its inputs as DuckDB computed them, one view deep."""
    from etl.export import export_table, table_ddl

    manifest = exported["manifest"]
    base = tmp_path_factory.mktemp("views-as-tables")
    con = duckdb.connect(str(demo_db), read_only=True)
    spark.sql("CREATE DATABASE views_as_tables")
    spark.sql("USE views_as_tables")
    try:
        register_tables(spark, exported)
        for view in manifest["view_order"]:
            entry = export_table(con, view, base / view, runs_available=False)
            spark.sql(table_ddl(view, entry, None, (base / view).as_uri(), "spark"))
    finally:
        spark.sql("USE default")
        con.close()
    return "views_as_tables"


def _run_view_query(spark, database: str, view_file: Path) -> Any:
    """The view file's query, exactly as written, over `database`: only its head changes,
    from CREATE OR REPLACE VIEW <name> to a temporary view (which may read tables)."""
    text = view_file.read_text()
    assert len(CREATE_VIEW.findall(text)) == 1, view_file
    spark.sql(f"USE {database}")
    try:
        spark.sql(CREATE_VIEW.sub("CREATE OR REPLACE TEMPORARY VIEW view_under_test AS", text))
    finally:
        spark.sql("USE default")
    return spark.table("view_under_test")


def test_every_spark_view_runs_as_written_and_matches_duckdb(
        spark, spark_catalog, views_as_tables: str, exported: dict, db) -> None:
    # Each view is checked one level deep, over its inputs as DuckDB computed them: a view
    # whose Spark form differs fails by name, and Spark never plans the whole chain of views
    # at once (a chain of 20 inlined views took minutes and, under load, the driver's heap).
    # That the chains compose as registered is checked on the main board below.
    out, manifest = exported["out"], exported["manifest"]
    assert spark_catalog["failed"] == {}, "Spark refused these view files as written"
    problems: list[str] = []
    compared_rows = 0
    for view in manifest["view_order"]:
        columns = [c["name"] for c in manifest["views"][view]["columns"]]
        quoted = ", ".join(f'"{c}"' for c in columns)
        want = db.execute(f'SELECT {quoted} FROM "{view}"').fetchall()
        query = _run_view_query(spark, views_as_tables,
                                out / manifest["views"][view]["sql"]["spark"])
        got = [tuple(row) for row in query.select(*columns).collect()]
        problems += row_problems(view, columns, want, got)
        compared_rows += len(want)
    assert not problems, "\n".join(problems)
    assert len(manifest["view_order"]) >= 17 and compared_rows > 1000


def test_the_board_through_its_whole_chain_of_views_matches_duckdb(
        spark, spark_catalog, exported: dict, db) -> None:
    # The views as a user registers them, composed: the leaderboard reads the board's runs,
    # the scorers and the per-result scores through a chain of views.
    columns = [c["name"] for c in exported["manifest"]["views"]["leaderboard"]["columns"]]
    quoted = ", ".join(f'"{c}"' for c in columns)
    want = db.execute(f'SELECT {quoted} FROM leaderboard').fetchall()
    got = [tuple(row) for row in spark.table("default.leaderboard").select(*columns).collect()]
    assert len(want) >= 20
    assert row_problems("leaderboard", columns, want, got) == []


def test_a_stale_override_is_reported_and_not_used(demo_db: Path, tmp_path: Path) -> None:
    from etl.export import export_parquet

    sql_dir = tmp_path / "sql"
    shutil.copytree(SQL_DIR, sql_dir)
    override = sql_dir / "dialect" / "spark" / "result_answers.sql"
    # The view gained a column the hand-written form does not have.
    override.write_text(override.read_text().replace("    qs.f1\n", "    qs.f1 AS f1_old\n"))
    manifest = export_parquet(demo_db, tmp_path / "out", sql_dir=sql_dir)
    assert any("result_answers: override not used" in p and "f1_old" in p
               for p in manifest["problems"]), manifest["problems"]
    entry = manifest["views"]["result_answers"]
    assert entry["sql_origins"]["spark"] == "sql/60_lineage.sql"
    assert entry["sql_origins"]["trino"] == "sql/dialect/trino/result_answers.sql"


# -- Spark on a warehouse of Inspect AI logs -------------------------------------------------

INSPECT_BOARDS = ("leaderboard", "leaderboard_all_scorers", "leaderboard_clustered")


@pytest.fixture(scope="module")
def inspect_exported(inspect_db: Path, tmp_path_factory: pytest.TempPathFactory
                     ) -> dict[str, Any]:
    return export_parquet_of(inspect_db, tmp_path_factory.mktemp("inspect-engines") / "parquet")


def test_inspect_boards_on_spark_equal_duckdb(spark, inspect_exported, inspect_db) -> None:
    tables, views = needed_for(inspect_exported, (*INSPECT_BOARDS, "token_usage"))
    assert {"inspect_scorers", "question_scores", "token_usage"} <= set(tables)
    spark.sql("CREATE DATABASE inspect_logs")
    spark.sql("USE inspect_logs")
    try:
        register(spark, inspect_exported, tables, views)
    finally:
        spark.sql("USE default")
    manifest = inspect_exported["manifest"]
    con = duckdb.connect(str(inspect_db), read_only=True)
    try:
        for view in INSPECT_BOARDS:
            columns = [c["name"] for c in manifest["views"][view]["columns"]]
            quoted = ", ".join(f'"{c}"' for c in columns)
            want = con.execute(f'SELECT {quoted} FROM "{view}"').fetchall()
            got = [tuple(r) for r in
                   spark.table(f"inspect_logs.{view}").select(*columns).collect()]
            assert want and row_problems(view, columns, want, got) == [], view
        assert spark.table("inspect_logs.inspect_scorers").count() == 6
        assert spark.table("inspect_logs.token_usage").count() == con.execute(
            "SELECT count(*) FROM token_usage").fetchall()[0][0]
    finally:
        con.close()
