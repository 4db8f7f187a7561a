"""What the commands that read a warehouse refuse, and how they say it:

- --db naming a DuckDB file this tool did not build (a foreign database, even one with a
  table called `leaderboard`): every reader exits 2 (a usage error) naming the file and how
  to build a warehouse, instead of DuckDB's "Table ... does not exist! Did you mean ..."
  about a table of that file; the notebook API raises the same message;
- `etl serve` on a port another program listens on: exit 1 naming the port and the way out,
  and no URL printed (a URL would lead to the other program); `--port 0` takes a free port
  and the URL printed is the one served."""

from __future__ import annotations

import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import duckdb
import pytest

import etl
from etl.connection import WarehouseUnavailable
from tests.conftest import run_etl
from tests.waiting import SAFETY_SECONDS, wait_for

READERS = [
    ["leaderboard"],
    ["leaderboard", "--benchmark", "ehr_bench", "--by", "task"],
    ["compare", "claude_opus_4_6", "glm_4_7", "--benchmark", "ehr_bench", "--mode", "agentic"],
    ["search", "Error executing"],
    ["lineage"],
    ["report", "--out", "report.html"],
    ["serve", "--port", "0"],
    ["query", "SELECT 1"],
    ["export", "--parquet", "out"],
]


@pytest.fixture(scope="module")
def foreign_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DuckDB file of someone else's, with tables that share names with ours."""
    db = tmp_path_factory.mktemp("foreign") / "other.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("CREATE TABLE leaderboard (model VARCHAR, score DOUBLE)")
        con.execute("CREATE TABLE runs (run_id VARCHAR)")
        con.execute("INSERT INTO leaderboard VALUES ('m', 0.5)")
    return db


@pytest.mark.parametrize("command", READERS, ids=lambda c: " ".join(c[:2]))
def test_a_reader_on_a_foreign_duckdb_file_says_it_is_not_a_warehouse(
        foreign_db: Path, tmp_path: Path, command: list[str]) -> None:
    before = foreign_db.read_bytes()
    proc = run_etl(*command, "--db", str(foreign_db), check=False, cwd=tmp_path, timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr  # a wrong --db: a usage error
    assert "Traceback" not in proc.stderr
    assert f"{foreign_db} is a DuckDB database, but not a warehouse built by this tool" in (
        proc.stderr)
    assert "etl ingest ROOT --db" in proc.stderr
    assert "Did you mean" not in proc.stderr and "sqlite_" not in proc.stderr
    assert "http://" not in proc.stderr  # serve refuses before it prints a URL
    assert proc.stdout == ""
    assert foreign_db.read_bytes() == before
    assert list(tmp_path.iterdir()) == []  # no report or export written


def test_the_api_on_a_foreign_duckdb_file_says_it_is_not_a_warehouse(foreign_db: Path) -> None:
    with pytest.raises(WarehouseUnavailable, match="not a warehouse built by this tool"):
        etl.open(foreign_db)


def test_a_file_that_is_not_duckdb_is_refused_without_a_traceback(tmp_path: Path) -> None:
    text = tmp_path / "README.md"
    text.write_text("# not a database\n")
    proc = run_etl("leaderboard", "--db", str(text), check=False)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and str(text) in proc.stderr


def test_serve_on_a_busy_port_fails_before_printing_a_url(demo_db: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = run_etl("serve", "--db", str(demo_db), "--port", str(port), check=False,
                       timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "http://" not in proc.stderr + proc.stdout
    assert f"port {port} on 127.0.0.1 is in use" in proc.stderr
    assert "--port 0" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_serve_on_port_0_prints_the_url_it_serves(demo_db: Path) -> None:
    server = subprocess.Popen([sys.executable, "-m", "etl.cli", "serve", "--db", str(demo_db),
                               "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        first_line = server.stderr.readline()
        assert first_line.startswith("etl serve: http://127.0.0.1:"), first_line
        url = first_line.split()[2]
        assert not url.endswith(":0/"), url
        page: list[bytes] = []

        def answered() -> bool:  # the board views are computed before serving
            try:
                with urllib.request.urlopen(url, timeout=SAFETY_SECONDS) as response:
                    assert response.status == 200
                    page.append(response.read())
                return True
            except OSError:
                assert server.poll() is None, server.stderr.read()
                return False

        wait_for(answered, "the printed URL answered", every=0.2)
        assert b"ehr_bench" in page[0]
    finally:
        server.terminate()
        server.wait(30)
        server.stderr.close()
