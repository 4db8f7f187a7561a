"""`etl serve`: start the explorer (etl/serve/app.py) with uvicorn."""

from __future__ import annotations

import errno
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


@click.command("serve", cls=EtlCommand)
@db_option("Warehouse database file (opened read-only; reopened when an ingest replaces it).")
@click.option("--host", default=LOOPBACK, show_default=True,
              help="Address to listen on. The default is loopback only; anything else "
                   "exposes every trajectory to the network.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port to listen on (0: any free port; the URL printed names it).")
@click.option("--memory-limit", default=DEFAULT_RESOURCES["memory_limit"], show_default=True,
              help="DuckDB memory limit of the server's connection (buffer pool and query "
                   "memory; beyond it DuckDB evicts cached blocks or spills to <db>.tmp).")
@click.option("--threads", default=DEFAULT_RESOURCES["threads"], show_default=True,
              type=click.IntRange(1, 256), help="DuckDB threads of the server's connection.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="Another name the server answers to (repeatable). Requests whose Host "
                   "header names anything but localhost, 127.0.0.1, ::1, --host or these are "
                   "refused (400), so a web page cannot reach the server through a DNS name "
                   "of its own.")
@click.option("--sql-timeout", default=10.0, show_default=True,
              type=click.FloatRange(0.1, 3600),
              help="Seconds a query of the SQL page may run before it is stopped.")
def serve_command(db: Path, host: str, port: int, memory_limit: str, threads: int,
                  allow_hosts: tuple[str, ...], sql_timeout: float) -> None:
    """Browse the warehouse in a web browser: leaderboards, model x task heat maps,
    questions, trajectories, run comparisons, archive lineage, rejects and read-only SQL.

    Every page has a shareable URL and is also served as JSON (?format=json) and, where it
    is a table, CSV (?format=csv). Needs the serve extra (`make ingest` installs it; in a
    checkout: pip install -e '.[serve]').

    \b
    Example:
      etl serve --db warehouse.duckdb      # then open http://127.0.0.1:8765/
    """
    if importlib.util.find_spec("starlette") is None or importlib.util.find_spec(
            "uvicorn") is None:
        raise click.ClickException(
            "etl serve needs the serve extra: `make ingest` installs it, or in the checkout "
            "pip install -e '.[serve]'")
    import duckdb
    import uvicorn

    from etl.connection import open_warehouse
    from etl.serve.app import create_app
    from etl.serve.gate import GateLimits
    from etl.serve.live import out_of_memory_message

    resources = {"memory_limit": memory_limit, "threads": threads}
    # Refused at once, before a port is taken: a missing or foreign file, a --memory-limit
    # DuckDB cannot parse.
    open_warehouse(db, resources).close()
    app = create_app(db, resources, allowed_hosts=(host, *allow_hosts),
                     gate_limits=GateLimits(timeout_seconds=sql_timeout))
    # The port is taken before the URL is printed: a busy port is an error, never a URL that
    # leads to another server.
    sock = listening_socket(host, port)
    url_host = f"[{host}]" if ":" in host else host
    if host != LOOPBACK:
        click.echo(f"etl serve: listening on {host}, not only loopback", err=True)
    click.echo(f"etl serve: http://{url_host}:{sock.getsockname()[1]}/ over {db} "
               "(read-only; Ctrl-C stops)", err=True)
    try:
        # The board-wide views take seconds on a full warehouse: compute them before serving
        # (a browser opened meanwhile waits in the socket's backlog).
        app.state.live.warm()
        app.state.gate.start()
    except duckdb.OutOfMemoryException as error:
        sock.close()
        raise click.ClickException(out_of_memory_message(error, resources)) from None

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            # Ctrl-C: a query of the SQL page stops now, so the request it serves ends and
            # the server is not held until the query's time limit.
            app.state.gate.stop_queries()
            super().handle_exit(sig, frame)

    try:
        Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5)
               ).run(sockets=[sock])
    finally:
        sock.close()


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket listening on host:port (port 0: a free one), or a ClickException that
    says why not (the port is in use, the address is not this machine's)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as error:
        raise click.ClickException(f"--host {host}: {error.strerror}") from None
    sock = socket.socket(family, kind, proto)
    # as uvicorn does: a restarted server may take the port at once (a port another socket
    # listens on still cannot be bound)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise click.ClickException(
                f"port {port} on {host} is in use (another etl serve?); choose another with "
                f"--port, or --port 0 for a free one") from None
        raise click.ClickException(f"cannot listen on {host}:{port}: {error.strerror}"
                                   ) from None
    return sock
