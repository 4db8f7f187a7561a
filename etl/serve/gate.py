"""The explorer's SQL page runs its queries here: in a process of its own, bounded, stoppable.

`etl query`'s gate (etl/query.py: the statement allow-list, a read-only connection with file
access off and the configuration locked) decides what may run. What the web page adds:

- A worker process (one at a time; started on the first query, replaced when it has to be
  killed) holds its own DuckDB database: the warehouse ATTACHed read-only into an in-memory
  database whose settings bound it: `memory_limit`, one thread, `temp_directory` a private
  directory made for it (mode 0700, removed on exit) and `max_temp_directory_size`. The
  process's address space is capped (RLIMIT_AS), so even memory DuckDB does not count (a
  chunk of huge strings) ends in an out-of-memory error, not in a server that grows. The
  pages never wait for it: they use the server's own connection (etl/serve/live.py).
- A deadline per query (`--sql-timeout`) and the client's departure both stop it: the
  worker interrupts the query (`interrupt()`), and a worker that does not answer within a
  grace period is killed and replaced.
- A result cap: at most `max_rows` rows and `max_bytes` of cell text per statement.
- The host stays hidden: functions and catalog views that show paths or settings
  (`current_setting`, `duckdb_databases`, `duckdb_settings`, `pragma_database_list`, ...),
  every table function outside a short list of catalog and generator functions (so no
  `read_*`, `glob`, `query`), and table names that are file paths are refused before the
  query runs (DuckDB's parser says what the statement calls); error messages have the
  private directory and the database path replaced. So the private temp directory (which
  DuckDB keeps readable even with file access off) cannot be named or read through the gate.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import re
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import duckdb
import orjson

from etl.connection import SAFE_CONFIG
from etl.lifeline import die_with_parent
from etl.query import (
    _EXPLAIN_PREFIX,
    _PRAGMA_NAME,
    QueryFailed,
    QueryRefused,
    QueryResult,
    check_read_only,
)

# Table functions a query of the SQL page may call: generators and the catalog of the
# warehouse. Everything else (read_*, glob, query, checkpoint, duckdb_settings, ...) is
# refused: an allow-list, so a function a new DuckDB adds is refused until listed here.
ALLOWED_TABLE_FUNCTIONS = frozenset({
    "range", "generate_series", "unnest", "repeat", "repeat_row", "json_each", "json_tree",
    "summary", "duckdb_tables", "duckdb_views", "duckdb_columns", "duckdb_constraints",
    "duckdb_indexes", "duckdb_schemas", "duckdb_types", "duckdb_functions", "duckdb_keywords",
    "duckdb_dependencies", "duckdb_sequences", "pragma_table_info", "pragma_show",
    "pragma_storage_info", "pragma_metadata_info", "pragma_database_size", "pragma_version",
    "pragma_platform", "pragma_user_agent", "pragma_collations", "pg_timezone_names",
    "icu_calendar_names",
})
# Scalar functions that show the host (paths of the settings).
REFUSED_FUNCTIONS = frozenset({"current_setting"})
# Catalog views that show paths or settings.
REFUSED_TABLES = frozenset({"duckdb_databases", "pragma_database_list", "duckdb_settings",
                            "duckdb_logs", "duckdb_extensions", "duckdb_temporary_files",
                            "duckdb_secrets", "pg_settings", "pg_database"})
REFUSED_PRAGMAS = frozenset({"database_list"})  # the path of every attached database
# A table name DuckDB would read as a file (a replacement scan): a path, a URL, a glob.
FILE_LIKE_NAME = re.compile(r"[./\\:*?]")

ALIAS = "warehouse"  # the name of the attached warehouse inside the gate
STARTUP_SECONDS = 120.0  # for the worker process to import DuckDB and say it is ready


@dataclass(frozen=True)
class GateLimits:
    """What one query of the SQL page may use (etl serve's options)."""

    timeout_seconds: float = 10.0
    max_rows: int = 1000
    max_bytes: int = 8 << 20  # text of the cells of one statement's result
    memory_limit: str = "256MB"  # DuckDB's buffer pool and operators
    address_space_mb: int = 1536  # the whole worker process (RLIMIT_AS)
    max_temp_size: str = "1GB"  # spilled to the private temp directory
    grace_seconds: float = 2.0  # after an interrupt, before the worker is killed


@dataclass
class GateAnswer:
    """The results of every statement, or why there are none (status: the HTTP status)."""

    results: list[QueryResult] = field(default_factory=list)
    error: str | None = None
    status: int = 200


# -- the policy: what a statement may call ---------------------------------------------------
def _called(tree: Any, out: list[tuple[str, str]]) -> None:
    """Collect ("table_function" | "function" | "table", name) of every node of a parsed
    statement (json_serialize_sql), subqueries and CTEs included."""
    if isinstance(tree, dict):
        if tree.get("type") == "TABLE_FUNCTION" and isinstance(tree.get("function"), dict):
            out.append(("table_function", str(tree["function"].get("function_name", ""))))
            for key, value in tree["function"].items():
                if key != "function_name":
                    _called(value, out)
            for key, value in tree.items():
                if key != "function":
                    _called(value, out)
            return
        if tree.get("class") == "FUNCTION" and "function_name" in tree:
            out.append(("function", str(tree["function_name"])))
        if tree.get("type") == "BASE_TABLE" and "table_name" in tree:
            out.append(("table", str(tree["table_name"])))
        for value in tree.values():
            _called(value, out)
    elif isinstance(tree, list):
        for value in tree:
            _called(value, out)


def check_hides_host(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Refuse (QueryRefused) a statement that would show the host or read a file: see the
    module docstring. Statements are those check_read_only accepted."""
    for statement in check_read_only(con, sql):
        text = statement.query
        if statement.type == duckdb.StatementType.PRAGMA:
            match = _PRAGMA_NAME.match(text)
            if match is None or match.group(1).lower() in REFUSED_PRAGMAS:
                raise QueryRefused("refused: the SQL page does not show database paths")
            continue
        if statement.type == duckdb.StatementType.EXPLAIN:
            match = _EXPLAIN_PREFIX.match(text)
            text = text[match.end():] if match else text
        tree = orjson.loads(con.execute("SELECT json_serialize_sql(?)", [text]).fetchone()[0])
        if tree.get("error"):
            raise QueryFailed(str(tree.get("error_message", "cannot parse the statement")))
        calls: list[tuple[str, str]] = []
        _called(tree, calls)
        for kind, name in calls:
            low = name.lower()
            if kind == "table_function" and low not in ALLOWED_TABLE_FUNCTIONS:
                raise QueryRefused(
                    f"refused: the SQL page does not call the table function {name}() (it may "
                    f"read files or show the host); allowed: the warehouse's tables and views, "
                    f"{', '.join(sorted(ALLOWED_TABLE_FUNCTIONS))}")
            if kind == "function" and low in REFUSED_FUNCTIONS:
                raise QueryRefused(f"refused: the SQL page does not show settings ({name})")
            if kind == "table" and (low in REFUSED_TABLES or FILE_LIKE_NAME.search(name)):
                raise QueryRefused(f"refused: the SQL page reads the warehouse's tables and "
                                   f"views only, not {name!r}")


# -- the worker process -------------------------------------------------------------------
def _file_identity(path: Path) -> tuple[int, ...]:
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


def _open(db: Path, temp_dir: str, limits: GateLimits) -> duckdb.DuckDBPyConnection:
    # Every setting but the two that would forbid the ATTACH; the settings that name the
    # home directory point into the private directory.
    early = {k: v for k, v in SAFE_CONFIG.items()
             if k not in ("enable_external_access", "lock_configuration")}
    con = duckdb.connect(":memory:", config={
        **early, "memory_limit": limits.memory_limit, "threads": 1,
        "temp_directory": temp_dir, "max_temp_directory_size": limits.max_temp_size,
        "home_directory": temp_dir, "secret_directory": temp_dir,
        "extension_directory": temp_dir})
    con.execute("SET enable_progress_bar = false")
    con.execute(f"ATTACH ? AS {ALIAS} (READ_ONLY)", [str(db)])
    con.execute(f"USE {ALIAS}")
    assert SAFE_CONFIG["enable_external_access"] is False
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def _scrub(message: str, db: Path, temp_dir: str) -> str:
    """An error message without the private directory or the database's path."""
    for secret, shown in ((temp_dir, "<temp>"), (str(db.resolve()), "<warehouse>"),
                          (str(db), "<warehouse>")):
        message = message.replace(secret, shown)
    return message


def _fetch(cursor: duckdb.DuckDBPyConnection, limits: GateLimits
           ) -> tuple[list[str], list[tuple[Any, ...]], bool]:
    columns = [d[0] for d in cursor.description or []]
    rows: list[tuple[Any, ...]] = []
    size = 0
    while len(rows) <= limits.max_rows:
        batch = cursor.fetchmany(min(100, limits.max_rows + 1 - len(rows)))
        if not batch:
            return columns, rows, False
        for row in batch:
            size += sum(len(v) if isinstance(v, str | bytes) else 16 for v in row)
            if size > limits.max_bytes or len(rows) == limits.max_rows:
                return columns, rows, True
            rows.append(row)
    return columns, rows, True


def _run_statements(con: duckdb.DuckDBPyConnection, sql: str, limits: GateLimits,
                    running: list[duckdb.DuckDBPyConnection]) -> list[QueryResult]:
    check_hides_host(con, sql)
    results = []
    for statement in check_read_only(con, sql):
        # On the connection itself (a cursor would not be USE-ing the warehouse); the main
        # thread interrupts it when asked to.
        running[:] = [con]
        try:
            con.execute(statement.query)
            columns, rows, truncated = _fetch(con, limits)
        except duckdb.OutOfMemoryException:
            raise
        except duckdb.PermissionException as error:
            raise QueryRefused(f"refused: {str(error).strip().splitlines()[0]}") from None
        except duckdb.Error as error:
            raise QueryFailed(str(error).strip()) from None
        finally:
            running.clear()
        results.append(QueryResult(statement.query.strip().rstrip(";").strip(), columns,
                                   rows, truncated))
    return results


class _Worker:
    """The worker process's state: the open connection and the file it opened."""

    def __init__(self, db: Path, temp_dir: str, limits: GateLimits) -> None:
        self.db, self.temp_dir, self.limits = db, temp_dir, limits
        self.con: duckdb.DuckDBPyConnection | None = None
        self.identity: tuple[int, ...] | None = None
        self.running: list[duckdb.DuckDBPyConnection] = []  # running a query now

    def answer(self, sql: str) -> dict[str, Any]:
        """{"results": [...]} or {"error": (kind, message)}, the message scrubbed."""
        try:
            now = _file_identity(self.db)
            if self.con is None or now != self.identity:  # an ingest renamed a new file over it
                if self.con is not None:
                    self.con.close()
                self.con, self.identity = _open(self.db, self.temp_dir, self.limits), now
            return {"results": _run_statements(self.con, sql, self.limits, self.running)}
        except (QueryRefused, QueryFailed) as error:
            kind, text = type(error).__name__, str(error)
        except duckdb.OutOfMemoryException as error:
            # Spilling past max_temp_directory_size is reported as out of memory too.
            kind = "OutOfDisk" if "max_temp_directory_size" in str(error) else "OutOfMemory"
            text = str(error).strip().splitlines()[0]
        except (duckdb.Error, OSError, MemoryError) as error:
            kind, text = "Unavailable", f"{type(error).__name__}: {error}"
        return {"error": (kind, _scrub(text, self.db, self.temp_dir))}


def worker_main(conn: Connection, db_path: str, temp_dir: str, limits: GateLimits,
                parent: int) -> None:
    """The worker process: answer ("sql", text) requests one at a time; ("cancel",) while
    a query runs interrupts it. Queries run on one thread started here, before the address
    space is capped (a thread started later could not get its memory arena)."""
    import queue
    import resource

    die_with_parent(parent)
    worker = _Worker(Path(db_path), temp_dir, limits)
    requests: queue.Queue[str] = queue.Queue()
    answers: queue.Queue[dict[str, Any]] = queue.Queue()

    def serve_queries() -> None:
        while True:
            answers.put(worker.answer(requests.get()))

    threading.Thread(target=serve_queries, daemon=True, name="etl-serve-sql-query").start()
    requests.put("SELECT 1")  # the thread's first allocations, before the cap
    answers.get()
    limit = limits.address_space_mb << 20
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    conn.send(("ready",))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message[0] != "sql":
            continue  # a cancel that came after its query ended
        requests.put(message[1])
        while True:
            try:
                answer = answers.get(timeout=0.05)
                break
            except queue.Empty:
                pass
            try:
                if conn.poll() and conn.recv()[0] == "cancel":
                    for con in list(worker.running):
                        con.interrupt()
            except (EOFError, OSError):
                return
        try:
            conn.send(answer)
        except (OSError, ValueError, TypeError, pickle.PicklingError) as error:
            # a value of the result that cannot be pickled
            conn.send({"error": ("QueryFailed", f"cannot send the result: {error}")})


class SqlGate:
    """The SQL page's queries, run one at a time by a worker process (see the module
    docstring). Thread-safe: run() may be called from several request threads at once."""

    def __init__(self, db_path: str | Path, limits: GateLimits | None = None) -> None:
        self.db = Path(db_path)
        self.limits = limits or GateLimits()
        self._lock = threading.Lock()
        self._process: multiprocessing.process.BaseProcess | None = None
        self._conn: Connection | None = None
        self._temp_dir: str | None = None
        self._stopping = threading.Event()
        self.restarts = 0

    def stop_queries(self) -> None:
        """The server is stopping: the query running now is interrupted and no other runs
        (safe to call from a signal handler)."""
        self._stopping.set()

    def start(self) -> None:
        """Start the worker now (it takes a second), rather than on the first query."""
        with self._lock:
            self._worker()

    def _worker(self) -> Connection:
        if self._process is not None and self._process.is_alive() and self._conn is not None:
            return self._conn
        self._stop_worker()
        if self._temp_dir is None:
            self._temp_dir = tempfile.mkdtemp(prefix="etl-serve-sql-")  # mode 0700
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe()
        process = context.Process(
            target=worker_main, args=(child, str(self.db), self._temp_dir, self.limits,
                                      os.getpid()),
            daemon=True, name="etl-serve-sql")
        # Started from a thread that lives as long as the worker: Linux kills a child whose
        # starting thread ends (PR_SET_PDEATHSIG), and request threads come and go.
        started = threading.Event()

        def keeper() -> None:
            process.start()
            started.set()
            process.join()

        threading.Thread(target=keeper, daemon=True, name="etl-serve-sql-keeper").start()
        started.wait()
        child.close()
        self._process, self._conn = process, parent
        # A query's time starts once the worker has imported DuckDB (seconds on a busy
        # machine), so the first query is not cut short by the start.
        if not parent.poll(STARTUP_SECONDS):
            self._stop_worker()
            raise OSError("the SQL page's worker process did not start")
        parent.recv()
        return parent

    def _stop_worker(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._process is not None:
            if self._process.is_alive():
                self._process.kill()
            self._process.join(5)
            self._process = None
            self.restarts += 1
        if self._temp_dir is not None:  # its spill files die with it
            for entry in Path(self._temp_dir).iterdir():
                shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else \
                    entry.unlink(missing_ok=True)

    def run(self, sql: str, client_gone: threading.Event | None = None) -> GateAnswer:
        """Run every statement of sql (all checked before the first runs), within the
        limits; stopped when client_gone is set."""
        if self._stopping.is_set():
            return GateAnswer(error="the server is stopping", status=503)
        if not self._lock.acquire(timeout=self.limits.timeout_seconds):
            return GateAnswer(error="the SQL page is busy with another query; try again when "
                                    "it has finished", status=503)
        try:
            conn = self._worker()
            deadline = time.monotonic() + self.limits.timeout_seconds
            conn.send(("sql", sql))
            stop_reason = None
            while not conn.poll(0.05):
                if not self._process or not self._process.is_alive():
                    self._stop_worker()
                    return GateAnswer(error="the query ended its worker process (out of "
                                            "memory?); try a smaller query", status=503)
                if self._stopping.is_set():
                    stop_reason = "stopped: the server is stopping"
                elif client_gone is not None and client_gone.is_set():
                    stop_reason = "the client left"
                elif time.monotonic() > deadline:
                    stop_reason = (f"stopped after {self.limits.timeout_seconds:g} s (the SQL "
                                   f"page's limit; `etl query` has none)")
                if stop_reason:
                    return self._cancel(conn, stop_reason)
            answer = conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            self._stop_worker()
            return GateAnswer(error="the query ended its worker process (out of memory?); "
                                    "try a smaller query", status=503)
        finally:
            self._lock.release()
        if "error" in answer:
            kind, text = answer["error"]
            status = {"QueryRefused": 400, "QueryFailed": 400}.get(kind, 503)
            if kind == "OutOfMemory":
                text = (f"the query needs more memory than the SQL page allows "
                        f"({self.limits.memory_limit}): {text}")
            elif kind == "OutOfDisk":
                text = (f"the query needs more temporary disk than the SQL page allows "
                        f"({self.limits.max_temp_size}, max_temp_directory_size): {text}")
            return GateAnswer(error=text, status=status)
        return GateAnswer(results=answer["results"])

    def _cancel(self, conn: Connection, why: str) -> GateAnswer:
        """Interrupt the running query; a worker that does not answer in time is killed."""
        with contextlib.suppress(OSError, BrokenPipeError):
            conn.send(("cancel",))
        if conn.poll(self.limits.grace_seconds):
            with contextlib.suppress(EOFError, OSError):
                conn.recv()  # the interrupted query's answer
        else:
            self._stop_worker()
        status = 408 if "left" in why else 503 if "stopping" in why else 400
        return GateAnswer(error=f"query {why}", status=status)

    def close(self) -> None:
        self._stopping.set()
        with self._lock:
            self._stop_worker()
            if self._temp_dir is not None:
                shutil.rmtree(self._temp_dir, ignore_errors=True)
                self._temp_dir = None
