"""Static checks of every sql/*.sql file, whoever wrote it: sqlglot parses it and qualifies each
view against the tables of every schema/*.sql file; applied to DuckDB, every view and every view
column carries a COMMENT and exposes only flat scalar columns of stable types (no HUGEINT, no
DECIMAL), so every BI tool can chart and describe them. schema/*.sql creates each table once,
whole, in one file that also holds its COMMENTs: no ALTER TABLE."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pytest
import sqlglot
from sqlglot import exp

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
    # tables and columns DuckDB builds from schema/*.sql.
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


# The checkout's schema/, found here rather than through etl (the check below is its own oracle).
CHECKOUT_SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schema"


def _schema_layout_problems(schema_dir: Path) -> tuple[dict[str, str], list[str]]:
    """(table -> the file that creates it, problems) for a schema directory, found by DuckDB:
    its parser splits each file into statements, and each statement is run in a scratch
    database (files in name order) so the catalog says which table a CREATE made. DuckDB
    types COMMENT ON as an ALTER statement too: sqlglot tells the two apart."""
    con = duckdb.connect()
    homes: dict[str, str] = {}
    problems: list[str] = []

    def table_oids() -> dict[str, int]:
        return dict(con.execute("SELECT table_name, table_oid FROM duckdb_tables()").fetchall())

    for path in sorted(schema_dir.glob("*.sql"), key=lambda p: p.name):
        for statement in duckdb.extract_statements(path.read_text(encoding="utf-8")):
            text = statement.query.strip()
            shown = " ".join(line for line in text.splitlines()
                             if not line.lstrip().startswith("--"))[:100]
            comment_target = None
            if statement.type == duckdb.StatementType.ALTER:
                parsed = sqlglot.parse_one(text, read="duckdb")
                if isinstance(parsed, exp.Comment):
                    target = parsed.this
                    comment_target = target.table if isinstance(target, exp.Column) else target.name
                else:
                    problems.append(f"{path.name}: ALTER statement: {shown}")
            elif statement.type != duckdb.StatementType.CREATE:
                problems.append(f"{path.name}: neither CREATE TABLE nor COMMENT ON: {shown}")
            before = table_oids()
            try:
                con.execute(statement.query)
            except duckdb.Error as error:
                problems.append(f"{path.name}: {error}")
                continue
            if statement.type == duckdb.StatementType.CREATE:
                after = table_oids()
                made = sorted(name for name, oid in after.items() if before.get(name) != oid)
                if not made:
                    problems.append(f"{path.name}: creates no table: {shown}")
                for name in made:
                    if name in homes:
                        problems.append(f"{path.name}: creates {name} again ({homes[name]})")
                    else:
                        homes[name] = path.name
            if comment_target is not None and homes.get(comment_target) != path.name:
                problems.append(f"{path.name}: COMMENT ON {comment_target} away from its "
                                f"CREATE TABLE ({homes.get(comment_target)})")
    missing = sorted(set(table_oids()) - set(homes))
    if missing:
        problems.append(f"tables no CREATE statement was seen making: {missing}")
    con.close()
    return homes, problems


def test_each_schema_table_is_created_once_whole_and_never_altered() -> None:
    homes, problems = _schema_layout_problems(CHECKOUT_SCHEMA_DIR)
    assert problems == []
    # the check saw the tables (a table of each family)
    assert {"results", "question_scores", "scorers", "run_log_stats", "paired_comparisons",
            "line_scores", "leaderboard_history"} <= set(homes)
    assert homes["results"] == homes["files"] == "00_core.sql"


def test_the_schema_layout_check_sees_an_alter_a_second_create_and_a_stray_comment(
    tmp_path: Path,
) -> None:
    (tmp_path / "00_a.sql").write_text(
        "-- the ALTER TABLE of a comment is no statement\n"
        "CREATE TABLE t (a INTEGER);\nCOMMENT ON TABLE t IS 'table t';\n"
        "COMMENT ON COLUMN t.a IS 'column a; ALTER TABLE t ADD COLUMN c INTEGER';\n",
        encoding="utf-8")
    (tmp_path / "10_b.sql").write_text(
        "ALTER TABLE t ADD COLUMN b VARCHAR USING COMPRESSION zstd;\n"
        "COMMENT ON COLUMN t.b IS 'column b';\n"
        "CREATE OR REPLACE TABLE t (a INTEGER);\n"
        "CREATE TABLE u (x INTEGER);\n",
        encoding="utf-8")
    homes, problems = _schema_layout_problems(tmp_path)
    assert homes == {"t": "00_a.sql", "u": "10_b.sql"}
    assert len(problems) == 3, problems
    assert problems[0].startswith("10_b.sql: ALTER statement: ALTER TABLE t ADD COLUMN b")
    assert problems[1].startswith("10_b.sql: COMMENT ON t away from its CREATE TABLE (00_a.sql)")
    assert problems[2].startswith("10_b.sql: creates t again (00_a.sql)")


def test_the_static_check_refuses_an_alter_in_the_schema(tmp_path: Path) -> None:
    for path in sorted(CHECKOUT_SCHEMA_DIR.glob("*.sql")):
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "99_alter.sql").write_text("ALTER TABLE runs ADD COLUMN late INTEGER;\n",
                                          encoding="utf-8")
    with pytest.raises(ViewError, match="99_alter.sql: ALTER TABLE runs"):
        schema_from_ddl(tmp_path)
