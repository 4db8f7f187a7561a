"""The layering of the command line and the readers, checked on the source itself:

- click (the command line) is imported only under etl/cli/: the library raises typed errors
  and takes progress as an argument, it never prints a bar or exits;
- the warehouse is opened for reading in one place (etl/connection.py open_warehouse): no
  other module outside the ingest (etl/pipeline/, which writes the file) calls
  duckdb.connect on a file, and every reader module goes through open_warehouse;
- the connection that function gives every reader refuses file access and setting changes.

The scan reads the import statements and calls of every module (ast), so a lazy import
inside a function counts as much as one at the top."""

from __future__ import annotations

import ast
from pathlib import Path

import duckdb
import pytest

import etl
from etl.connection import open_warehouse

PACKAGE = Path(etl.__file__).parent
CLI = PACKAGE / "cli"
# Modules that may call duckdb.connect: the one read-only opener, the ingest that writes the
# warehouse, and in-memory connections that never touch a file (each with why).
CONNECT_ALLOWED = {
    "connection.py": "the one read-only opener",
    "schema.py": "an in-memory connection that parses the SQL files",
    "cli/query.py": "an in-memory connection that parses the user's SQL before it runs",
    "serve/gate.py": "the SQL page's worker: an in-memory database with private temp and "
                     "home directories, the warehouse attached to it read-only",
}
# Where each reader opens the file (a library module that takes a connection, such as
# etl/leaderboard.py, is opened for by its command).
READERS = ["api.py", "cli/leaderboard.py", "cli/lineage.py", "cli/ingest.py", "cli/serve.py",
           "report.py", "export.py", "serve/live.py", "serve/bench.py", "bi.py", "query.py",
           "board_history.py"]


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def imported_modules(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def imports_click(source: str) -> bool:
    return any(name == "click" or name.startswith("click.")
               for name in imported_modules(ast.parse(source)))


def connect_calls(source: str) -> list[int]:
    """Line numbers of duckdb.connect(...) calls (and of a bare connect imported from duckdb)."""
    tree = ast.parse(source)
    bare = any(isinstance(node, ast.ImportFrom) and node.module == "duckdb"
               and any(alias.name == "connect" for alias in node.names)
               for node in ast.walk(tree))
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr == "connect"
                and isinstance(func.value, ast.Name) and func.value.id == "duckdb"):
            lines.append(node.lineno)
        elif bare and isinstance(func, ast.Name) and func.id == "connect":
            lines.append(node.lineno)
    return lines


def test_the_scan_sees_every_form_of_import() -> None:
    # The detector itself, on the forms a module could use (else the test below proves nothing).
    for source in ("import click", "from click import echo", "import click.testing",
                   "def f():\n    import click\n", "from click.testing import CliRunner"):
        assert imports_click(source), source
    for source in ("import clickhouse", "from etl.cli import errors", "x = 'import click'"):
        assert not imports_click(source), source
    assert connect_calls("import duckdb\ncon = duckdb.connect('x')") == [2]
    assert connect_calls("from duckdb import connect\nconnect('x')") == [2]
    assert connect_calls("con.connect()") == []


def test_no_module_outside_etl_cli_imports_click() -> None:
    offenders = [str(path.relative_to(PACKAGE)) for path in modules()
                 if CLI not in path.parents and imports_click(path.read_text())]
    assert offenders == [], f"click imported outside etl/cli/: {offenders}"
    # ... and the command line does use it there (the scan looks at the right files)
    assert all(imports_click(path.read_text()) for path in CLI.glob("*.py")
               if path.name not in ("__main__.py",) and "@click." in path.read_text())


def test_only_the_one_opener_connects_to_a_file() -> None:
    offenders = []
    for path in modules():
        rel = str(path.relative_to(PACKAGE))
        if rel.startswith("pipeline/") or rel in CONNECT_ALLOWED:
            continue
        offenders += [f"{rel}:{line}" for line in connect_calls(path.read_text())]
    assert offenders == [], f"duckdb.connect outside etl/connection.py: {offenders}"


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_opens_through_open_warehouse(reader: str) -> None:
    source = (PACKAGE / reader).read_text()
    tree = ast.parse(source)
    through = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
               and node.module in ("etl.connection", "etl.api") for alias in node.names}
    # the explorer's connection is the notebook API's Warehouse (etl/api.py)
    assert through & {"open_warehouse", "Warehouse"}, reader


def test_cli_readers_open_through_open_warehouse_or_a_library_reader() -> None:
    # A command that reads the warehouse calls open_warehouse or a library reader that does;
    # none builds its own connection (checked above) or its own SQL text.
    for path in CLI.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("execute", "sql"):
                first = node.args[0] if node.args else None
                assert not isinstance(first, ast.Constant), (
                    f"{path.name}:{node.lineno} runs SQL text written in Python "
                    "(put it in sql/queries/)")


def test_the_readers_connection_refuses_files_and_setting_changes(demo_db: Path,
                                                                  tmp_path: Path) -> None:
    outside = tmp_path / "secret.csv"
    outside.write_text("a\n1\n")
    con = open_warehouse(demo_db)
    try:
        assert con.execute("SELECT count(*) FROM runs").fetchall()[0][0] > 0
        refused = [f"SELECT * FROM read_csv('{outside}')",
                   "SET enable_external_access = true",
                   "CREATE TABLE t AS SELECT 1",
                   f"COPY runs TO '{tmp_path / 'out.csv'}'"]
        for sql in refused:
            with pytest.raises(duckdb.Error):
                con.execute(sql)
        assert not (tmp_path / "out.csv").exists()
    finally:
        con.close()
    # The notebook API's connection is that one.
    with etl.open(demo_db) as wh:
        with pytest.raises(duckdb.Error):
            wh.sql(f"SELECT * FROM read_csv('{outside}')")


def test_check_is_a_command_of_etl_cli_with_its_sql_in_sql_queries() -> None:
    # tests/pipeline/test_ingest.py runs it on the demo tree
    from etl.schema import query_text

    assert "check_command" in (CLI / "ingest.py").read_text()
    assert query_text("check_runs") and query_text("check_rejects")
