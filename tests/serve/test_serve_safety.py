"""`etl serve` under attack: the SQL page bounded in time, memory and disk, stopped when its
client leaves and never holding the other pages; POST from the page's own origin only; the
host hidden from it; a Host allow-list against DNS rebinding; CSV cells a spreadsheet cannot
run; and every bad parameter a 4xx carrying the same security headers as every response."""

from __future__ import annotations

import csv
import io
import json
import os
import socket
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.budgets import examples
from tests.conftest import run_etl
from tests.serving import get, post_sql, running_server
from tests.terminal import as_from_a_terminal
from tests.waiting import SAFETY_SECONDS, wait_for

pytest.importorskip("starlette")

from etl.serve.app import FORMULA_STARTS, Table, _csv  # noqa: E402
from etl.serve.gate import ALLOWED_TABLE_FUNCTIONS, GateLimits  # noqa: E402

SECURITY = ("content-security-policy", "x-content-type-options", "referrer-policy",
            "x-frame-options")
RUNAWAY = "SELECT count(*) FROM messages a, messages b, messages c"


def _headers_ok(headers: dict[str, str]) -> bool:
    present = {k.lower() for k in headers}
    return all(name in present for name in SECURITY)


@pytest.fixture(scope="module")
def gated(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, object]]:
    """A server over a copy of the demo warehouse whose SQL page has 64 MB of memory."""
    import shutil

    db = tmp_path_factory.mktemp("gated") / "w.duckdb"
    shutil.copy(demo_db, db)
    limits = GateLimits(timeout_seconds=120.0, memory_limit="64MB", max_temp_size="64MB")
    with running_server(db, gate_limits=limits) as base:
        assert get(base + "/")[0] == 200  # the memos are computed: pages are fast now
        assert post_sql(base, "SELECT 1")[0] == 200  # the worker is up
        yield base, db


def _raw_post(base: str, sql: str) -> socket.socket:
    """A POST of the SQL page's form on a socket of its own, left open: the client is there
    until the test closes it."""
    host, port = urllib.parse.urlsplit(base).netloc.split(":")
    body = urllib.parse.urlencode({"q": sql}).encode()
    sock = socket.create_connection((host, int(port)))
    sock.sendall(b"POST /sql HTTP/1.1\r\nHost: " + f"{host}:{port}".encode()
                 + f"\r\nOrigin: {base}".encode()
                 + b"\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    return sock


def _answered(sock: socket.socket) -> bool:
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return False


def test_a_runaway_query_is_stopped_and_never_holds_the_other_pages(gated: tuple) -> None:
    from dataclasses import replace

    from tests.serving import server_app

    base, _ = gated
    gate = server_app(base).state.gate
    limits = gate.limits
    try:
        # The deadline stops it: the answer says so (a query left to finish would never
        # end), and the page works again.
        gate.limits = replace(limits, timeout_seconds=3.0)  # the deadline is the server's
        status, body = post_sql(base, RUNAWAY, "json")
        assert status == 400 and "stopped after 3 s" in json.loads(body)["error"]
        assert post_sql(base, "SELECT 42 AS n", "json")[0] == 200
        # While a runaway query holds the SQL page, every other page answers: each page is
        # answered before the query's own answer, with the query still running.
        gate.limits = limits
        pages = ["/", "/board?benchmark=ehr_bench&mode=agentic", "/rejects", "/lineage"]
        with _raw_post(base, RUNAWAY) as sock:
            wait_for(gate._lock.locked, "the runaway query holds the SQL page")
            for page in pages:
                assert get(base + page)[0] == 200, page
            assert gate._lock.locked() and not _answered(sock)
        # Its client gone, the query stops (a query of its own would wait for it).
        wait_for(lambda: not gate._lock.locked(), "the runaway query stopped")
        assert post_sql(base, "SELECT 42 AS n", "json")[0] == 200  # the page works again
    finally:
        gate.limits = limits


def test_a_client_that_leaves_stops_its_query(demo_db: Path, tmp_path: Path) -> None:
    import shutil

    from tests.serving import server_app

    db = tmp_path / "w.duckdb"
    shutil.copy(demo_db, db)
    # The query's own deadline is far beyond the test's safety net: only the client leaving
    # can stop it in time.
    with running_server(db, gate_limits=GateLimits(timeout_seconds=10 * SAFETY_SECONDS)
                        ) as base:
        assert post_sql(base, "SELECT 1")[0] == 200
        gate = server_app(base).state.gate
        with _raw_post(base, RUNAWAY):
            wait_for(gate._lock.locked, "the runaway query runs")
        wait_for(lambda: not gate._lock.locked(), "the query stopped when its client left")
        status, reply = post_sql(base, "SELECT 7 AS n", "json")
        assert status == 200 and json.loads(reply)["tables"]["statement_1"] == [{"n": 7}]


SPILLING = ("SELECT count(*) FROM (SELECT DISTINCT repeat(CAST(range AS VARCHAR), 20) "
            "FROM range(3000000))")


def test_memory_of_a_query_is_bounded(gated: tuple) -> None:
    base, _ = gated
    status, body = post_sql(base, "SELECT repeat(chr(65), 10000000) AS a FROM range(60)",
                            "json")
    assert status == 503 and "more memory than the SQL page allows" in json.loads(body)["error"]
    assert post_sql(base, "SELECT 1")[0] == 200


def test_disk_of_a_query_is_bounded_and_private(demo_db: Path, tmp_path: Path) -> None:
    import shutil

    from tests.serving import server_app

    db = tmp_path / "w.duckdb"
    shutil.copy(demo_db, db)
    limits = GateLimits(timeout_seconds=300, memory_limit="32MB", max_temp_size="8MB")
    with running_server(db, gate_limits=limits) as base:
        status, body = post_sql(base, SPILLING, "json", timeout=600)
        error = json.loads(body)["error"]
        assert status == 503 and "max_temp_directory_size" in error, (status, error)
        temp_dir = Path(server_app(base).state.gate._temp_dir)
        assert temp_dir.stat().st_mode & 0o077 == 0, "private to the server's user"
        assert str(temp_dir) not in error
        # Nothing spilled beside the database (DuckDB's default <db>.tmp).
        beside = db.with_name(db.name + ".tmp")
        assert not beside.exists() or not any(beside.iterdir())
        assert post_sql(base, "SELECT 1")[0] == 200
    assert not temp_dir.exists(), "removed when the server stops"


def test_the_worker_process_stays_under_its_address_space_limit(gated: tuple) -> None:
    from tests.serving import server_app

    base, _ = gated
    gate = server_app(base).state.gate
    post_sql(base, "SELECT repeat(chr(65), 10000000) AS a FROM range(60)", "json")
    pid = gate._process.pid
    with open(f"/proc/{pid}/status") as fh:
        status = dict(line.split(":", 1) for line in fh)
    peak_kb = int(status["VmHWM"].split()[0])
    assert peak_kb < GateLimits.address_space_mb * 1024


HOST_REVEALING = [
    "SELECT current_setting('temp_directory')",
    "SELECT current_setting('secret_directory')",
    "SELECT * FROM duckdb_databases()",
    "SELECT * FROM duckdb_databases",
    "SELECT * FROM pragma_database_list",
    "PRAGMA database_list",
    "SELECT * FROM duckdb_settings()",
    "SELECT * FROM pg_catalog.pg_settings",
    "SELECT * FROM duckdb_temporary_files()",
    "SELECT * FROM duckdb_extensions()",
    "SELECT * FROM query('SELECT * FROM duckdb_databases()')",
    "SELECT * FROM glob('/tmp/*')",
    "SELECT * FROM read_text('/etc/hostname')",
    "SELECT * FROM read_blob('/tmp/x')",
    "SELECT * FROM '/etc/passwd'",
    "WITH x AS (SELECT * FROM read_csv('/etc/passwd')) SELECT * FROM x",
    "SELECT (SELECT count(*) FROM read_parquet('/tmp/*.parquet'))",
    "EXPLAIN ANALYZE SELECT * FROM read_text('/etc/hostname')",
    "SELECT 1 UNION ALL SELECT count(*) FROM system.main.duckdb_settings()",
]


def test_the_host_is_hidden_from_the_sql_page(gated: tuple) -> None:
    from tests.serving import server_app

    base, db = gated
    gate = server_app(base).state.gate
    secrets = [str(db.resolve().parent), gate._temp_dir, os.path.expanduser("~")]
    for sql in HOST_REVEALING:
        status, body = post_sql(base, sql, "json")
        assert status == 400 and json.loads(body)["error"].startswith("refused"), sql
        assert not any(s.encode() in body for s in secrets), sql
    # Every table function DuckDB offers outside the allow-list is refused, whatever it is.
    con = duckdb.connect()
    names = [n for (n,) in con.execute("SELECT DISTINCT function_name FROM duckdb_functions() "
                                       "WHERE function_type = 'table'").fetchall()]
    con.close()
    for name in names:
        status, body = post_sql(base, f"SELECT * FROM {name}()", "json")
        if name.lower() in ALLOWED_TABLE_FUNCTIONS:
            assert not any(s.encode() in body for s in secrets), name
        else:
            assert status == 400 and "refused" in json.loads(body)["error"], name
    # An error message of DuckDB's that names the private directory does not show it.
    status, body = post_sql(base, "SELECT count(*) FROM (SELECT DISTINCT repeat(CAST(range "
                                  "AS VARCHAR), 20) FROM range(3000000))", "json")
    assert gate._temp_dir.encode() not in body
    # The warehouse itself stays readable, with the catalog.
    status, body = post_sql(base, "SELECT count(*) AS n FROM duckdb_tables() WHERE "
                                  "table_name = 'results'", "json")
    assert status == 200 and json.loads(body)["tables"]["statement_1"] == [{"n": 1}]


def test_only_a_post_from_the_page_runs_a_query(gated: tuple) -> None:
    base, _ = gated
    status, headers, body = get(base + "/sql?" + urllib.parse.urlencode(
        {"q": "SELECT 42 AS answer", "format": "json"}))
    data = json.loads(body)
    assert status == 200 and data["tables"] == {} and data["sql"] == "SELECT 42 AS answer"
    for headers in ({"Origin": "http://attacker.example"}, {"Origin": "null"},
                    {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}):
        status, body = post_sql(base, "SELECT 42 AS answer", "json", headers=headers)
        assert status == 403 and b"42" not in body, headers
    assert post_sql(base, "SELECT 42 AS answer", "json",
                    headers={"Sec-Fetch-Site": "same-origin"})[0] == 200


def _raw_get(base: str, path: str, host: str) -> tuple[int, dict[str, str]]:
    netloc = urllib.parse.urlsplit(base).netloc
    address, port = netloc.rsplit(":", 1)
    with socket.create_connection((address, int(port))) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
                     .encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    status = int(head[0].split()[1])
    return status, dict(line.split(": ", 1) for line in head[1:] if ": " in line)


def test_the_host_header_is_checked(gated: tuple) -> None:
    base, _ = gated
    port = urllib.parse.urlsplit(base).port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "localhost"):
        assert _raw_get(base, "/", host)[0] == 200, host
    for host in ("attacker.example", f"attacker.example:{port}", "127.0.0.1.nip.io",
                 f"localhost.attacker.example:{port}", ""):
        status, headers = _raw_get(base, "/", host)
        assert status == 400 and _headers_ok(headers), host


def test_allowed_hosts_add_names(demo_db: Path) -> None:
    with running_server(demo_db, allowed_hosts=["warehouse.lan", "10.0.0.5"]) as base:
        assert _raw_get(base, "/static/app.js", "warehouse.lan:8765")[0] == 200
        assert _raw_get(base, "/static/app.js", "10.0.0.5")[0] == 200
        assert _raw_get(base, "/static/app.js", "other.lan")[0] == 400


def test_csv_cells_cannot_be_formulas(gated: tuple) -> None:
    base, _ = gated
    sql = ("SELECT '=1+1' AS a, '+1' AS b, '-2' AS c, '@SUM(A1)' AS d, chr(9) || 'x' AS e, "
           "chr(13) || 'y' AS f, 'plain' AS g, -5 AS n, -0.5 AS x, '  =1+1' AS s, "
           "chr(10) || '=1+1' AS l, ' plain' AS p")
    status, body = post_sql(base, sql, "csv")
    assert status == 200
    (row,) = list(csv.DictReader(io.StringIO(body.decode(), newline="")))
    assert row == {"a": "'=1+1", "b": "'+1", "c": "'-2", "d": "'@SUM(A1)", "e": "'\tx",
                   "f": "'\ry", "g": "plain", "n": "-5", "x": "-0.5", "s": "'  =1+1",
                   "l": "'\n=1+1", "p": " plain"}


@given(st.lists(st.text(), min_size=1, max_size=5), st.text())
@settings(max_examples=examples(300), deadline=None)
def test_any_text_cell_is_kept_and_never_starts_a_formula(cells: list[str], name: str) -> None:
    table = Table(["c" + str(i) for i in range(len(cells))] + [name or "x"],
                  [{**{f"c{i}": v for i, v in enumerate(cells)}, (name or "x"): name}])
    rows = list(csv.reader(io.StringIO(_csv(table), newline="")))
    assert len(rows) == 2
    for written, original in zip(rows[1], [*cells, name], strict=True):
        # Read back: the text itself, or the text behind one quote when a spreadsheet
        # would have run it (OWASP: =, +, -, @, tab, carriage return; also after blanks
        # and line breaks, which spreadsheets skip).
        if original.startswith(FORMULA_STARTS) or original.lstrip()[:1] in ("=", "+", "-",
                                                                             "@"):
            assert written == "'" + original
        else:
            assert written == original
        assert not written.lstrip().startswith(FORMULA_STARTS)


CRAFTED = [
    "/?start_boards=%C2%B2",
    "/?start_boards=" + "9" * 5000,
    "/board?benchmark=ehr_bench&mode=agentic&start_board=" + "9" * 5000,
    "/message?run=a&qid=b&page=99999999999999999",
    "/message?run=a&qid=b&page=-1",
    "/rejects?offset=1e20",
    "/rejects?offset=%EF%BC%91",
    "/trajectory?run=a&qid=b&index=99999999999999999999",
    "/image?run=a&qid=b&index=1&msg=" + "1" * 400 + "&block=0",
    "/questions?run=" + "%00" * 10,
    "/compare?a=%00&b=%FF",
]


def test_crafted_parameters_get_a_4xx_with_every_header(gated: tuple) -> None:
    base, _ = gated
    for path in CRAFTED:
        status, headers, _ = get(base + path)
        assert status < 500 and _headers_ok(headers), (path, status)


@given(st.sampled_from(["/message?run=a&qid=b&page=", "/rejects?offset=",
                        "/trajectory?run=a&qid=b&index=", "/?start_boards=",
                        "/image?run=a&qid=b&block="]),
       st.text(min_size=1, max_size=60))
@settings(max_examples=examples(80), deadline=None)
def test_any_parameter_value_gets_an_answer_with_the_headers(path: str, value: str) -> None:
    base = _SERVER["base"]
    status, headers, _ = get(base + path + urllib.parse.quote(value))
    assert status < 500 and _headers_ok(headers), (path, value, status)


_SERVER: dict[str, str] = {}


@pytest.fixture(autouse=True)
def _share_server(request: pytest.FixtureRequest) -> None:
    """The Hypothesis test above reads the module's server from here (a fixture argument
    would be rebuilt for each example)."""
    if request.node.name.startswith("test_any_parameter_value"):
        _SERVER["base"] = request.getfixturevalue("gated")[0]


def test_a_server_error_keeps_the_headers(demo_db: Path) -> None:
    from starlette.routing import Route

    from tests.serving import server_app

    def broken(request: object) -> None:
        raise RuntimeError("boom")

    with running_server(demo_db) as base:
        server_app(base).router.routes.insert(0, Route("/broken", broken))
        status, headers, body = get(base + "/broken")
        assert status == 500 and _headers_ok(headers) and b"boom" not in body


def test_a_duckdb_file_of_another_tool(tmp_path: Path) -> None:
    foreign = tmp_path / "other.duckdb"
    with duckdb.connect(str(foreign)) as con:
        con.execute("CREATE TABLE t AS SELECT 1 AS x")
    with running_server(foreign) as base:
        status, headers, body = get(base + "/")
        assert status == 503 and _headers_ok(headers)
        assert b"not a warehouse built by this tool" in body
    proc = run_etl("serve", "--db", str(foreign), "--port", "0", check=False, timeout=120)
    assert proc.returncode == 2 and "not a warehouse built by this tool" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_ctrl_c_stops_the_server_at_once_during_a_runaway_query(demo_db: Path) -> None:
    """One SIGINT (Ctrl-C) stops etl serve while the SQL page runs a query with an hour
    left, its worker process with it, without a traceback: the query's answer says the
    server is stopping (a server that waited for it would answer after the hour)."""
    import signal
    import subprocess
    import sys

    from tests.serving import free_port, wait_for_server

    port = free_port()
    proc = subprocess.Popen(as_from_a_terminal(
        [sys.executable, "-m", "etl.cli", "serve", "--db", str(demo_db), "--port", str(port),
         "--sql-timeout", "3600"]),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_server(base, proc)
        children = [int(p) for p in subprocess.run(["pgrep", "-P", str(proc.pid)],
                                                   capture_output=True, text=True
                                                   ).stdout.split()]
        idle = {child: _cpu_seconds(child) for child in children}
        answer: dict = {}
        runner = threading.Thread(target=lambda: answer.setdefault(
            "sql", post_sql(base, RUNAWAY, "json")), daemon=True)
        runner.start()
        # The query runs once the SQL page's worker spends CPU on it.
        wait_for(lambda: any(_cpu_seconds(c) > idle[c] + 0.2 for c in children),
                 "the SQL page's worker runs the query")
        proc.send_signal(signal.SIGINT)
        proc.wait(SAFETY_SECONDS)
        runner.join(SAFETY_SECONDS)
        assert answer["sql"][0] == 503 and b"the server is stopping" in answer["sql"][1]
        assert "Traceback" not in proc.stderr.read()
        for child in children:  # the SQL page's worker (and its resource tracker)
            wait_for(lambda child=child: _gone(child), f"process {child} ended")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return None


def _cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / os.sysconf(
        "SC_CLK_TCK")


def _gone(pid: int) -> bool:
    """Ended: reaped, or a zombie its parent (gone too) left to init."""
    fields = _stat(pid)
    return fields is None or fields[0] == "Z"
