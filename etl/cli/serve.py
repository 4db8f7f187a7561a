"""`etl serve`: start the explorer (etl/serve/app.py) with uvicorn."""

from __future__ import annotations

import importlib.util
import socket
from pathlib import Path
from typing import Any

import click

from etl.cli.errors import EtlCommand
from etl.cli.options import db_option

LOOPBACK = "127.0.0.1"
# What the server's connection may use. DuckDB's buffer pool and hash tables default to 80%
# of the machine's RAM; computing the board memos then peaks near 1 GB at bench scale. With a
# limit DuckDB evicts cached blocks and spills (to <db>.tmp) instead: peak RSS ~390 MB. One
# thread: the per-request queries are small scans, and on a busy 2-core machine a second
# thread made p95 worse (it only speeds up the memos computed at start).
DEFAULT_RESOURCES: dict[str, Any] = {"memory_limit": "256MB", "threads": 1}


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to host:port (port 0: a free one), or a ClickException saying the
    address is taken: checked before the URL is printed and the warehouse read."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as error:
        raise click.ClickException(f"cannot listen on {host}: {error.strerror}") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
    try:
        sock.bind(address)
    except OSError as error:
        sock.close()
        busy = " (another program, or another etl serve, listens there; choose another " \
               "--port)" if error.errno in (98, 48) else ""
        raise click.ClickException(
            f"cannot listen on {host}:{port}: {error.strerror}{busy}") from None
    return sock


@click.command("serve", cls=EtlCommand)
@db_option("Warehouse database file (opened read-only; reopened when an ingest replaces it).")
@click.option("--host", default=LOOPBACK, show_default=True,
              help="Address to listen on. The default is loopback only; anything else "
                   "exposes every trajectory to the network.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port to listen on.")
@click.option("--memory-limit", default=DEFAULT_RESOURCES["memory_limit"], show_default=True,
              help="DuckDB memory limit of the server's connection (buffer pool and query "
                   "memory; beyond it DuckDB evicts cached blocks or spills to <db>.tmp).")
@click.option("--threads", default=DEFAULT_RESOURCES["threads"], show_default=True,
              type=click.IntRange(1, 256), help="DuckDB threads of the server's connection.")
def serve_command(db: Path, host: str, port: int, memory_limit: str, threads: int) -> None:
    """Browse the warehouse in a web browser: leaderboards, model x task heat maps,
    questions, trajectories, run comparisons, archive lineage, rejects and read-only SQL.

    Every page has a shareable URL and is also served as JSON (?format=json) and, where it
    is a table, CSV (?format=csv). Needs the serve extra:
    pip install 'clinseek-warehouse[serve]'.

    \b
    Example:
      etl serve --db warehouse.duckdb      # then open http://127.0.0.1:8765/
    """
    if importlib.util.find_spec("starlette") is None or importlib.util.find_spec(
            "uvicorn") is None:
        raise click.ClickException(
            "etl serve needs the serve extra: pip install 'clinseek-warehouse[serve]'")
    import duckdb
    import uvicorn

    from etl.connection import open_warehouse
    from etl.serve.app import create_app
    from etl.serve.live import out_of_memory_message

    resources = {"memory_limit": memory_limit, "threads": threads}
    # A missing or foreign file, or a --memory-limit DuckDB cannot parse, is refused first.
    open_warehouse(db, resources).close()
    sock = listening_socket(host, port)
    try:
        if host != LOOPBACK:
            click.echo(f"etl serve: listening on {host}, not only loopback", err=True)
        click.echo(f"etl serve: http://{host}:{sock.getsockname()[1]}/ over {db} (read-only; "
                   "Ctrl-C stops)", err=True)
        try:
            app = create_app(db, resources)
            # The board-wide views take seconds on a full warehouse: compute them first.
            app.state.live.warm()
        except duckdb.OutOfMemoryException as error:
            raise click.ClickException(out_of_memory_message(error, resources)) from None
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    finally:
        sock.close()
