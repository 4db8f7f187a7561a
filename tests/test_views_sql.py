"""Static checks of every sql/*.sql file, whoever wrote it: sqlglot parses it and qualifies each
view against the tables of every schema/*.sql file; applied to DuckDB, every view and every view
column carries a COMMENT and exposes only flat scalar columns of stable types (no HUGEINT, no
DECIMAL), so every BI tool can chart and describe them."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pytest

from etl.views import (
    SCHEMA_DIR,
    SQL_DIR,
    ViewError,
    apply_schema,
    apply_views,
    bi_problems,
    check_views,
    is_bi_type,
    is_scalar_type,
    list_views,
    schema_from_ddl,
    sql_files,
)

CONTRACT_VIEWS = {
    "leaderboard": {
        "benchmark", "mode", "model", "n_questions", "score", "ci_low", "ci_high", "rank",
    },
    "leaderboard_by_task": {
        "benchmark", "mode", "model", "task", "task_group", "n_questions", "score",
    },
    "leaderboard_by_group": {"benchmark", "mode", "model", "task_group", "n_questions", "score"},
    "mode_delta": {
        "benchmark", "model", "task_group", "agentic_score", "oneshot_score", "delta",
    },
    "coverage": {"run_id", "expected_questions", "present", "missing", "errors", "incomplete"},
    "tool_usage": {"benchmark", "mode", "model", "tool", "n_calls", "calls_per_question"},
}


@pytest.fixture(scope="module")
def warehouse() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    apply_schema(con)
    apply_views(con)
    yield con
    con.close()


def test_every_sql_file_parses_and_qualifies_against_the_schema() -> None:
    assert sql_files(SQL_DIR), "no sql/*.sql files found"
    assert check_views() == []


def test_sqlglot_schema_matches_duckdb_tables(warehouse: duckdb.DuckDBPyConnection) -> None:
    # The static check is only as good as its picture of the schema: it must see the same
    # tables and columns DuckDB builds from schema/*.sql (ALTER TABLE files included).
    from_duckdb: dict[str, set[str]] = {}
    for table, column in warehouse.execute(
        "SELECT table_name, column_name FROM duckdb_columns() "
        "WHERE NOT internal AND table_name IN (SELECT table_name FROM duckdb_tables())"
    ).fetchall():
        from_duckdb.setdefault(table, set()).add(column)
    from_sqlglot = {table: set(columns) for table, columns in schema_from_ddl().items()}
    assert from_sqlglot == from_duckdb


def _copy_sql_dir(tmp_path: Path) -> Path:
    sql_dir = tmp_path / "sql"
    sql_dir.mkdir()
    for path in sql_files(SQL_DIR):
        shutil.copy(path, sql_dir / path.name)
    return sql_dir


@pytest.mark.parametrize(
    ("broken_sql", "expected"),
    [
        ("CREATE VIEW broken AS SELECT run_id, no_such_column FROM runs;", "no_such_column"),
        ("CREATE VIEW broken AS SELECT r.no_such_column FROM runs AS r;", "no_such_column"),
        ("CREATE VIEW broken AS SELECT t.run_id FROM no_such_table AS t;", "no_such_table"),
        # A later view selecting a column that an earlier view does not expose.
        ("CREATE VIEW broken AS SELECT l.no_such_column FROM leaderboard AS l;", "no_such_column"),
        ("CREATE VIEW broken AS SELECT FROM WHERE (;", "cannot parse"),
        ("COMMENT ON VIEW no_such_view IS 'x';", "no_such_view"),
        ("COMMENT ON COLUMN leaderboard.no_such_column IS 'x';", "no_such_column"),
        ("COMMENT ON COLUMN no_such_view.score IS 'x';", "no_such_view"),
        ("COMMENT ON COLUMN score IS 'x';", "<view or table>.score"),
        # A column comment away from the file that creates the view: a later CREATE OR REPLACE
        # of the view in its own file would drop it.
        ("COMMENT ON COLUMN leaderboard.score IS 'x';", "belongs in 10_leaderboard.sql"),
        ("COMMENT ON VIEW coverage IS 'x';", "belongs in 30_coverage.sql"),
    ],
)
def test_a_broken_view_fails_the_check(tmp_path: Path, broken_sql: str, expected: str) -> None:
    sql_dir = _copy_sql_dir(tmp_path)
    (sql_dir / "99_broken.sql").write_text(broken_sql + "\n", encoding="utf-8")
    problems = check_views(sql_dir, SCHEMA_DIR)
    assert problems, "the broken view passed the check"
    assert all(problem.startswith("99_broken.sql") for problem in problems), problems
    assert any(expected in problem for problem in problems), problems


def test_apply_views_names_the_file_that_fails(tmp_path: Path) -> None:
    sql_dir = _copy_sql_dir(tmp_path)
    (sql_dir / "99_broken.sql").write_text(
        "CREATE VIEW broken AS SELECT no_such_column FROM runs;\n", encoding="utf-8"
    )
    con = duckdb.connect()
    apply_schema(con)
    with pytest.raises(ViewError, match="99_broken.sql"):
        apply_views(con, sql_dir)


def test_contract_views_exist_with_their_columns(warehouse: duckdb.DuckDBPyConnection) -> None:
    views = {view.name: {column.name for column in view.columns} for view in list_views(warehouse)}
    for name, columns in CONTRACT_VIEWS.items():
        assert name in views, f"view {name} missing"
        assert columns <= views[name], f"{name} lacks {columns - views[name]}"


def test_every_view_has_a_comment_and_scalar_columns(warehouse: duckdb.DuckDBPyConnection) -> None:
    views = list_views(warehouse)
    assert views
    for view in views:
        assert view.comment and view.comment.strip(), f"view {view.name} has no COMMENT"
        nested = [(c.name, c.data_type) for c in view.columns if not is_scalar_type(c.data_type)]
        assert not nested, f"view {view.name} has nested columns {nested}"


def test_scalar_type_rule() -> None:
    assert is_scalar_type("DOUBLE") and is_scalar_type("VARCHAR") and is_scalar_type("BIGINT")
    for nested in ("VARCHAR[]", "INTEGER[3]", "STRUCT(a INTEGER)", "MAP(VARCHAR, INTEGER)"):
        assert not is_scalar_type(nested)


# Types a BI driver or Parquet handles badly, spelled as DuckDB's catalog spells them.
UNSTABLE_TYPE = re.compile(r"HUGEINT|DECIMAL|NUMERIC|STRUCT|MAP\(|UNION\(|\[")

VIEW_COLUMNS_SQL = """
    SELECT c.table_name, c.column_name, c.data_type, c.comment
    FROM duckdb_columns() AS c
    JOIN duckdb_views() AS v
        ON v.view_name = c.table_name AND v.database_name = c.database_name
        AND v.schema_name = c.schema_name
    WHERE NOT v.internal AND c.database_name = current_database()
    ORDER BY c.table_name, c.column_index
"""


def test_every_view_column_has_a_comment_and_a_stable_scalar_type(
    warehouse: duckdb.DuckDBPyConnection,
) -> None:
    # Read straight from DuckDB's catalog (not through list_views) so this holds whatever the
    # helpers in etl/views.py do.
    rows = warehouse.execute(VIEW_COLUMNS_SQL).fetchall()
    assert rows, "no view columns found"
    views = {row[0] for row in rows}
    assert set(CONTRACT_VIEWS) <= views
    undescribed = [f"{view}.{column}" for view, column, _, comment in rows
                   if not (comment and comment.strip())]
    assert not undescribed, f"view columns without a COMMENT: {undescribed}"
    unstable = [f"{view}.{column} {data_type}" for view, column, data_type, _ in rows
                if UNSTABLE_TYPE.search(data_type.upper())]
    assert not unstable, f"view columns of a HUGEINT / DECIMAL / nested type: {unstable}"
    # The helper the ingest and tools use agrees.
    assert bi_problems(list_views(warehouse)) == []


def test_view_column_comments_show_in_information_schema(
    warehouse: duckdb.DuckDBPyConnection,
) -> None:
    # JDBC / ODBC based BI tools (Metabase, DBeaver) read descriptions from information_schema.
    from_catalog = {(view, column): comment
                    for view, column, _, comment in warehouse.execute(VIEW_COLUMNS_SQL).fetchall()}
    from_schema = {
        (view, column): comment
        for view, column, comment in warehouse.execute(
            "SELECT c.table_name, c.column_name, c.COLUMN_COMMENT "
            "FROM information_schema.columns AS c "
            "JOIN information_schema.tables AS t "
            "ON t.table_name = c.table_name AND t.table_schema = c.table_schema "
            "WHERE t.table_type = 'VIEW' AND c.table_schema = 'main'"
        ).fetchall()
    }
    assert from_schema == from_catalog


def test_bi_problems_names_each_unready_column(tmp_path: Path) -> None:
    # A view built the way the leaderboard sums were before they were cast: sum(BIGINT) is
    # HUGEINT in DuckDB, a bare 0.5 literal is DECIMAL, a list is nested; only run_id is
    # described.
    sql_dir = _copy_sql_dir(tmp_path)
    (sql_dir / "99_unready.sql").write_text(
        "CREATE VIEW unready AS SELECT run_id, sum(n_results) AS total, 0.5 AS half, "
        "[run_id] AS listed FROM runs GROUP BY run_id;\n"
        "COMMENT ON VIEW unready IS 'test view';\n"
        "COMMENT ON COLUMN unready.run_id IS 'run';\n",
        encoding="utf-8",
    )
    assert check_views(sql_dir, SCHEMA_DIR) == []  # statically fine; the types are the issue
    con = duckdb.connect()
    apply_schema(con)
    apply_views(con, sql_dir)
    problems = [p for p in bi_problems(list_views(con)) if p.startswith("view unready:")]
    types = dict(con.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'unready'"
    ).fetchall())
    assert "HUGEINT" in types["total"] and "DECIMAL" in types["half"], types
    for column in ("total", "half", "listed"):
        assert f"view unready: column {column} has no COMMENT" in problems, problems
        assert any(p.startswith(f"view unready: column {column} has type") for p in problems)
    assert not any("column run_id" in p for p in problems), problems
    con.close()


def test_bi_type_rule() -> None:
    for good in ("DOUBLE", "BIGINT", "INTEGER", "VARCHAR", "BOOLEAN", "TIMESTAMP", "DATE"):
        assert is_bi_type(good), good
    for bad in ("HUGEINT", "UHUGEINT", "DECIMAL(18,3)", "VARCHAR[]", "STRUCT(a INTEGER)"):
        assert not is_bi_type(bad), bad
