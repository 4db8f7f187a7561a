"""A running `etl serve` app for tests: uvicorn in a thread on a free loopback port, and
small HTTP helpers that read it the way a browser or curl would."""

from __future__ import annotations

import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn

from etl.serve.app import create_app


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def running_server(db: Path, resources: dict | None = None) -> Iterator[str]:
    """The explorer over db at http://127.0.0.1:<free port>; stopped on exit. resources: the
    bounds of its DuckDB connection (as etl serve passes them); then no other connection of
    this process may open db with other settings while it runs."""
    config = uvicorn.Config(create_app(db, resources), host="127.0.0.1", port=free_port(),
                            log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.should_exit = True
        thread.join(10)


def get(url: str) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of one GET, error statuses included."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()
