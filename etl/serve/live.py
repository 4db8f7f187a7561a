"""A Warehouse that follows the file: an ingest publishes by renaming a new database over the
old one, so before each request the file's identity (inode, mtime, size) is compared with the
one that was opened, and a changed file is reopened. The old connection keeps reading the old
inode until it is closed, so a request never sees a half-written file."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa

from etl.api import Warehouse, query_text


def file_identity(path: Path) -> tuple[int, int, int, int]:
    """What changes when a new file is renamed over `path` (or it is rewritten in place)."""
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


MEMOS = ("board_scorers", "lineage", "archive_diff", "coverage", "reject_files", "changes")
# The board a page shows when it names no scorer: each run by its own default scorer.
DEFAULT_BOARD = "default"


def out_of_memory_message(error: BaseException, resources: dict[str, Any] | None) -> str:
    """What to tell the user when DuckDB hit the server connection's memory limit."""
    limit = (resources or {}).get("memory_limit", "DuckDB's default")
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return (f"the server's memory limit ({limit}) is too small for this warehouse: {first}; "
            "restart etl serve with a larger --memory-limit")


class ServeWarehouse(Warehouse):
    """The read-only Warehouse with the explorer's queries (sql/queries/serve_*.sql).

    The board-wide views (board_rows, board_cells, archive_lineage, archive_diff, coverage,
    ...) take seconds at bench scale and do not
    depend on the request, so each is computed once per open file (serve_memo_*.sql) and
    filtered here;
    the per-result and per-question scores that per-request queries join are materialized
    on the connection when it opens (serve_memo_tables.sql). A new file gets a new
    ServeWarehouse and so fresh memos.

    resources: bounds of the connection (see etl.cli.serve.DEFAULT_RESOURCES and
    etl.connection.open_warehouse)."""

    def __init__(self, path: str | Path, frames: str = "arrow",
                 resources: dict[str, Any] | None = None) -> None:
        super().__init__(path, frames, resources)
        self._memo: dict[str, list[dict[str, Any]]] = {}
        try:
            self.con.execute(query_text("serve_memo_tables"))
        except BaseException:
            self.con.close()
            raise

    def memo(self, name: str) -> list[dict[str, Any]]:
        """Every row of sql/queries/serve_memo_<name>.sql, computed on first use."""
        if name not in self._memo:
            self._memo[name] = self.arrow(query_text(f"serve_memo_{name}")).to_pylist()
        return self._memo[name]

    def board_memo(self, kind: str, board: str) -> list[dict[str, Any]]:
        """Every row of sql/queries/serve_board_<kind>.sql (rows, cells) for one board scorer,
        computed on first use: each scorer's boards cost about a second at bench scale, so
        they are computed when a page first asks for them, not all at once."""
        key = f"board_{kind}:{board}"
        if key not in self._memo:
            self._memo[key] = self.arrow(query_text(f"serve_board_{kind}"),
                                         {"board": board}).to_pylist()
        return self._memo[key]

    def warm(self) -> None:
        """Compute every memo now (before the first request rather than during it): the
        default boards, and the memos of the other pages."""
        for name in MEMOS:
            self.memo(name)
        self.board_memo("rows", DEFAULT_BOARD)
        self.board_memo("cells", DEFAULT_BOARD)

    def board(self, name: str, benchmark: str, mode: str) -> list[dict[str, Any]]:
        """The rows of one board (benchmark, mode) of a memo (the failure views')."""
        return [r for r in self.memo(name) if r["benchmark"] == benchmark and r["mode"] == mode]

    def board_rows(self, benchmark: str | None = None, mode: str | None = None,
                   scorer: str | None = None, shared: bool = False) -> list[dict[str, Any]]:
        """The rows of board_rows of one board: benchmark and mode (None: every one), scored
        by `scorer` (None: each run's default), over all or only the shared questions."""
        questions = "shared" if shared else "all"
        return [r for r in self.board_memo("rows", scorer or DEFAULT_BOARD)
                if benchmark in (None, r["benchmark"]) and mode in (None, r["mode"])
                and r["question_set"] == questions]

    def board_cells(self, benchmark: str, mode: str, level: str, scorer: str | None = None,
                    shared: bool = False) -> list[dict[str, Any]]:
        """The group or task cells (level) of board_cells of one board."""
        questions = "shared" if shared else "all"
        return [r for r in self.board_memo("cells", scorer or DEFAULT_BOARD)
                if r["benchmark"] == benchmark and r["mode"] == mode and r["level"] == level
                and r["question_set"] == questions]

    def board_scorers(self, benchmark: str, mode: str) -> list[str]:
        """The scorers a board can be shown with besides each run's default."""
        return sorted(r["scorer"] for r in self.memo("board_scorers")
                      if r["benchmark"] == benchmark and r["mode"] == mode)

    def resolve_run(self, name: str, benchmark: str | None = None, mode: str | None = None
                    ) -> str:
        # A leaderboard run id names itself; anything else (a model name or alias) goes
        # through the API's resolution.
        if any(r["run_id"] == name and benchmark in (None, r["benchmark"])
               and mode in (None, r["mode"]) for r in self.board_rows()):
            return name
        return super().resolve_run(name, benchmark, mode)

    def serve(self, name: str, **params: Any) -> pa.Table:
        """Run sql/queries/serve_<name>.sql with named, bound parameters."""
        return self.arrow(query_text(f"serve_{name}"), params)

    def serve_rows(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """The rows of sql/queries/serve_<name>.sql as dicts. Fetched as Python rows, not
        through Arrow: for a trajectory's nested tool calls that is a third faster."""
        cursor = self.con.execute(query_text(f"serve_{name}"), params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


class LiveWarehouse:
    """One open ServeWarehouse shared by the requests, reopened when the file changes.

    DuckDB connections are not meant for concurrent use from threads, so requests take turns
    (a lock): this is a local, single-user explorer."""

    def __init__(self, path: str | Path, resources: dict[str, Any] | None = None) -> None:
        self.path = Path(path)
        self.resources = resources
        self._lock = threading.Lock()
        self._wh: ServeWarehouse | None = None
        self._identity: tuple[int, int, int, int] | None = None
        self.reopened = 0

    def _refresh(self) -> ServeWarehouse:
        identity = file_identity(self.path)
        if self._wh is not None and identity != self._identity:
            # Close first: DuckDB shares one database instance per path within a process,
            # so a connection opened while the old one lives would read the old file.
            self._wh.close()
            self._wh = None
            self.reopened += 1
        if self._wh is None:
            self._wh = ServeWarehouse(self.path, frames="arrow", resources=self.resources)
            self._identity = identity
        return self._wh

    def warm(self) -> None:
        with self.use() as wh:
            wh.warm()

    @contextmanager
    def use(self) -> Iterator[ServeWarehouse]:
        """The warehouse of the current file, held for the duration of one request."""
        with self._lock:
            yield self._refresh()

    def close(self) -> None:
        with self._lock:
            if self._wh is not None:
                self._wh.close()
                self._wh = None
