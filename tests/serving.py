"""A running `etl serve` app for tests: uvicorn in a thread on a free loopback port, and
small HTTP helpers that read it the way a browser or curl would."""

from __future__ import annotations

import socket
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import uvicorn

from etl.connection import SAFE_CONFIG
from etl.serve.app import create_app
from etl.serve.gate import GateLimits
from tests.waiting import SAFETY_SECONDS, wait_for


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


_APPS: dict[str, object] = {}

# The SQL page's deadline in tests that do not test it: a query's answer must not depend on
# how busy the machine is (etl serve's default is 10 s). Tests of the deadline set their own.
TEST_GATE_LIMITS = GateLimits(timeout_seconds=SAFETY_SECONDS)


def server_app(base: str) -> object:
    """The app of a server running_server started (its state holds the live warehouse and
    the SQL gate)."""
    return _APPS[base]


@contextmanager
def running_server(db: Path, resources: dict | None = None, **app_options: object
                   ) -> Iterator[str]:
    """The explorer over db at http://127.0.0.1:<free port>; stopped on exit. resources: the
    bounds of its DuckDB connection (as etl serve passes them); then no other connection of
    this process may open db with other settings while it runs. app_options: passed to
    create_app (gate_limits, allowed_hosts); the SQL page's deadline is TEST_GATE_LIMITS
    unless gate_limits is given."""
    app_options.setdefault("gate_limits", TEST_GATE_LIMITS)
    app = create_app(db, resources, **app_options)
    config = uvicorn.Config(app, host="127.0.0.1", port=free_port(),
                            log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_for(lambda: server.started or not thread.is_alive(), "the test server started")
    if not server.started:
        raise RuntimeError("the test server did not start")
    base = f"http://127.0.0.1:{config.port}"
    _APPS[base] = app
    try:
        yield base
    finally:
        _APPS.pop(base, None)
        server.should_exit = True
        thread.join(10)


def get(url: str) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of one GET, error statuses included."""
    try:
        with urllib.request.urlopen(url, timeout=SAFETY_SECONDS) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def query_rows(db: Path, sql: str, params: list | None = None) -> list[dict]:
    """Rows of a query on the warehouse, as dicts. Opened with the server's settings: a
    server in this process holds the file open, and DuckDB wants every connection to one file
    to agree on them."""
    with duckdb.connect(str(db), read_only=True, config=dict(SAFE_CONFIG)) as con:
        cursor = con.execute(sql, params or [])
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


CHROMIUM = Path("/usr/bin/chromium")


@contextmanager
def chromium() -> Iterator[object]:
    """Debian's Chromium driven by Playwright from PyPI (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                             args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


def follow(page: object, locator: object) -> None:
    """Click a link or button that loads another page and return once that page has loaded.
    A click returns when the navigation commits, before the new document is parsed; reading
    the page right after it raced the load (an empty list of marks, once, on a busy machine)."""
    with page.expect_navigation(wait_until="load"):
        locator.click()


def wait_for_server(base: str, proc: subprocess.Popen) -> None:
    """Wait until the `etl serve` child process at base answers (or fail with its stderr)."""

    def answers() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"etl serve exited: {proc.stderr.read() if proc.stderr else ''}")
        try:
            with urllib.request.urlopen(base + "/static/app.js", timeout=SAFETY_SECONDS):
                return True
        except (urllib.error.URLError, ConnectionError, OSError):
            return False

    wait_for(answers, f"etl serve answered at {base}", every=0.1)


def post_sql(base: str, sql: str, fmt: str = "html", headers: dict[str, str] | None = None,
             timeout: float = SAFETY_SECONDS) -> tuple[int, bytes]:
    """(status, body) of the SQL page's form posted the way the browser posts it (same
    origin), the result as HTML, JSON or CSV."""
    data = urllib.parse.urlencode({"q": sql}).encode()
    request = urllib.request.Request(
        f"{base}/sql?format={fmt}", data=data, method="POST",
        headers={"Origin": base, "Content-Type": "application/x-www-form-urlencoded",
                 **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
