"""The warehouse as BI tools open it: through SQLAlchemy with duckdb-engine read-only (how
Superset and many notebooks connect) and with a DuckDB 1.5 client (what the Metabase and
DBeaver drivers bundle). Every table and view must list, reflect and read; views must be
flat, plainly named and described in the catalogs BI tools show."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

from etl.schema import PROJECT_DIR
from etl.views import is_scalar_type
from tests.conftest import run_etl

sa = pytest.importorskip("sqlalchemy", reason="SQLAlchemy is a dev dependency (pip install "
                         "-e '.[dev]')")
pytest.importorskip("duckdb_engine", reason="duckdb-engine is a dev dependency")

pytestmark = pytest.mark.filterwarnings(
    "ignore:duckdb-engine doesn't yet support reflection on indices")

DUCKDB_15 = "1.5.6"
VENV_15 = PROJECT_DIR / "build" / "venv-duckdb15"
# A column name a BI tool shows and a dashboard keeps: lower snake case, no quoting needed.
PLAIN_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
# The public views and the columns DESIGN.md promises (more columns are welcome).
CONTRACT_VIEWS: dict[str, set[str]] = {
    "leaderboard": {"benchmark", "mode", "model", "n_questions", "score", "ci_low", "ci_high",
                    "rank"},
    "leaderboard_by_task": {"benchmark", "mode", "model", "task", "task_group", "n_questions",
                            "score"},
    "leaderboard_by_group": {"benchmark", "mode", "model", "task_group", "n_questions",
                             "score"},
    "mode_delta": {"benchmark", "model", "task_group", "agentic_score", "oneshot_score",
                   "delta"},
    "coverage": {"run_id", "expected_questions", "present", "missing", "errors", "incomplete"},
    "archive_lineage": {"archived_run_id", "archive_name", "relation", "superseded_by_run_id"},
    "summary_reconciliation": {"run_id", "scoring", "task", "metric", "reported", "recomputed",
                               "abs_diff"},
    "tool_usage": {"benchmark", "mode", "model", "tool", "n_calls", "calls_per_question"},
}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def catalog(demo_db: Path) -> dict[str, Any]:
    """What DuckDB 2 itself says: relations, their kind, row counts, columns and comments."""
    con = duckdb.connect(str(demo_db), read_only=True)
    try:
        relations = dict(con.execute(
            "SELECT table_name, 'table' FROM duckdb_tables() WHERE NOT internal "
            "UNION ALL SELECT view_name, 'view' FROM duckdb_views() WHERE NOT internal"
        ).fetchall())
        counts = {name: con.execute(f'SELECT count(*) FROM "{name}"').fetchall()[0][0]
                  for name in relations}
        columns: dict[str, list[tuple[str, str, str | None]]] = {}
        for name, column, data_type, comment in con.execute(
                "SELECT table_name, column_name, data_type, comment FROM duckdb_columns() "
                "ORDER BY table_name, column_index").fetchall():
            if name in relations:
                columns.setdefault(name, []).append((column, data_type, comment))
        comments = dict(con.execute(
            "SELECT table_name, comment FROM duckdb_tables() WHERE NOT internal UNION ALL "
            "SELECT view_name, comment FROM duckdb_views() WHERE NOT internal").fetchall())
        # The standard catalog that JDBC / ODBC based BI tools read the descriptions from.
        schema_column_comments = {(t, c): comment for t, c, comment in con.execute(
            "SELECT table_name, column_name, COLUMN_COMMENT FROM information_schema.columns "
            "WHERE table_schema = 'main'").fetchall()}
        schema_table_comments = dict(con.execute(
            "SELECT table_name, TABLE_COMMENT FROM information_schema.tables "
            "WHERE table_schema = 'main'").fetchall())
    finally:
        con.close()
    return {"kind": relations, "rows": counts, "columns": columns, "comments": comments,
            "schema_column_comments": schema_column_comments,
            "schema_table_comments": schema_table_comments}


@pytest.fixture(scope="module")
def engine(demo_db: Path):
    # The URI docs/BI.md tells a Superset user to type: read-only, so the BI tool never takes
    # the write lock.
    eng = sa.create_engine(f"duckdb:///{demo_db}?access_mode=read_only")
    yield eng
    eng.dispose()


def test_sqlalchemy_lists_reflects_and_reads_every_table_and_view(engine, catalog,
                                                                  demo_db: Path) -> None:
    before = _sha256(demo_db)
    inspector = sa.inspect(engine)
    tables, views = set(inspector.get_table_names()), set(inspector.get_view_names())
    assert tables == {n for n, k in catalog["kind"].items() if k == "table"}
    assert views == {n for n, k in catalog["kind"].items() if k == "view"}
    assert set(CONTRACT_VIEWS) <= views
    metadata = sa.MetaData()
    with engine.connect() as con:
        # One reflection of the whole schema, as Superset does when a database is added.
        metadata.reflect(bind=con, views=True)
        assert set(metadata.tables) == tables | views
        for name in sorted(tables | views):
            reflected = metadata.tables[name]
            assert [c.name for c in reflected.columns] == \
                [c[0] for c in catalog["columns"][name]], name
            for column in reflected.columns:
                # A type SQLAlchemy does not know (NullType) is a column a BI tool cannot chart.
                assert not isinstance(column.type, sa.types.NullType), (name, column.name)
            count = con.execute(sa.select(sa.func.count()).select_from(reflected)).scalar_one()
            assert count == catalog["rows"][name], name
            sample = con.execute(sa.select(reflected).limit(3)).fetchall()
            assert len(sample) == min(3, count), name
    assert _sha256(demo_db) == before, "a read-only BI connection changed the database"


def test_sqlalchemy_read_only_connection_refuses_writes(engine) -> None:
    with engine.connect() as con, pytest.raises(sa.exc.DBAPIError, match="read-only"):
        con.execute(sa.text("CREATE TABLE scratch (x INTEGER)"))


def test_sqlalchemy_shows_table_and_view_comments(engine, catalog) -> None:
    inspector = sa.inspect(engine)
    for name in catalog["kind"]:
        assert inspector.get_table_comment(name)["text"] == catalog["comments"][name], name
    for name in CONTRACT_VIEWS:
        reflected = {c["name"]: c["comment"] for c in inspector.get_columns(name)}
        assert reflected == {c[0]: c[2] for c in catalog["columns"][name]}, name


def test_views_are_flat_plainly_named_and_described(catalog: dict[str, Any]) -> None:
    views = [n for n, k in catalog["kind"].items() if k == "view"]
    for view in views:
        assert catalog["comments"][view], f"view {view} has no COMMENT"
        names = [c[0] for c in catalog["columns"][view]]
        assert len(names) == len(set(names)), view
        for column, data_type, _ in catalog["columns"][view]:
            assert PLAIN_NAME.match(column), (view, column)
            assert is_scalar_type(data_type), (view, column, data_type)
    for view, promised in CONTRACT_VIEWS.items():
        assert promised <= {c[0] for c in catalog["columns"][view]}, view
    for table in (n for n, k in catalog["kind"].items() if k == "table"):
        undocumented = [c[0] for c in catalog["columns"][table] if not c[2]]
        assert catalog["comments"][table] and not undocumented, (table, undocumented)
    # information_schema shows the same descriptions as duckdb_columns() / duckdb_views().
    assert catalog["schema_table_comments"] == catalog["comments"]
    assert catalog["schema_column_comments"] == {
        (t, c[0]): c[2] for t, cols in catalog["columns"].items() for c in cols}
    described = sum(1 for v in views for c in catalog["columns"][v] if c[2])
    total = sum(len(catalog["columns"][v]) for v in views)
    print(f"\nview columns with a COMMENT: {described} of {total}")


def test_bi_reader_keeps_reading_while_an_ingest_publishes(demo_tree, demo_db: Path,
                                                           tmp_path: Path) -> None:
    # The lock caveat of docs/BI.md: a read-only BI connection does not block the ingest; it
    # keeps the file it opened until it reconnects.
    root, _ = demo_tree
    db = tmp_path / "warehouse.duckdb"
    shutil.copyfile(demo_db, db)
    eng = sa.create_engine(f"duckdb:///{db}", connect_args={"read_only": True})
    ingest_ids = sa.text("SELECT ingest_id FROM ingests ORDER BY finished_at")
    try:
        with eng.connect() as held:
            old = held.execute(ingest_ids).scalars().all()
            run_etl("ingest", str(root), "--db", str(db), "--quiet", "--full")
            assert held.execute(ingest_ids).scalars().all() == old
            assert held.execute(sa.text("SELECT count(*) FROM leaderboard")).scalar_one() > 0
        eng.dispose()
        with eng.connect() as fresh:
            new = fresh.execute(ingest_ids).scalars().all()
        assert new != old and new[-1] not in old
    finally:
        eng.dispose()


def _duckdb15_python() -> Path:
    """A venv with the DuckDB 1.5 client, created once under build/ (needs the registry)."""
    python = VENV_15 / "bin" / "python"
    check = [str(python), "-c", "import duckdb; print(duckdb.__version__)"]
    if python.exists():
        proc = subprocess.run(check, capture_output=True, text=True)
        if proc.returncode == 0 and proc.stdout.strip() == DUCKDB_15:
            return python
    steps = [[sys.executable, "-m", "venv", "--clear", str(VENV_15)],
             [str(python), "-m", "pip", "install", "--quiet", f"duckdb=={DUCKDB_15}"]]
    for step in steps:
        proc = subprocess.run(step, capture_output=True, text=True)
        if proc.returncode != 0:
            message = (f"cannot set up the DuckDB {DUCKDB_15} client venv ({' '.join(step)}): "
                       f"{proc.stderr.strip()[-500:]}")
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
    return python


@pytest.mark.needs_registry
def test_duckdb_15_client_reads_every_table_and_view(demo_db: Path, catalog) -> None:
    python = _duckdb15_python()
    proc = subprocess.run([str(python), "-m", "etl.bi", str(demo_db)], capture_output=True,
                          text=True, cwd=PROJECT_DIR, env={**os.environ,
                                                           "PYTHONPATH": str(PROJECT_DIR)})
    assert proc.returncode == 0, proc.stderr
    probe = orjson.loads(proc.stdout)
    assert probe["duckdb_version"] == DUCKDB_15
    relations = probe["relations"]
    failed = {name: r["error"] for name, r in relations.items() if r["error"]}
    assert not failed, f"DuckDB {DUCKDB_15} cannot read: {failed}"
    assert set(relations) == set(catalog["kind"])
    for name, result in relations.items():
        assert result["kind"] == catalog["kind"][name], name
        assert result["rows"] == catalog["rows"][name], name
        assert [c[0] for c in result["columns"]] == [c[0] for c in catalog["columns"][name]]
