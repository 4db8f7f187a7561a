"""Static checks of every sql/*.sql file, whoever wrote it: sqlglot parses it and qualifies each
view against the tables of every schema/*.sql file; applied to DuckDB, every view carries a
COMMENT and exposes only flat scalar columns."""

from __future__ import annotations

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
    check_views,
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
