"""Where a load's time and a database's bytes go: DuckDB's profile of every statement of
the load (`etl ingest --profile-dir`), and the bytes of every column of every table in the
file, the blocks of long strings included (what `etl bench` prints of each cold build)."""

from __future__ import annotations

import itertools
from collections import defaultdict
from pathlib import Path
from typing import Any

import duckdb
import orjson

PROFILE_INDEX = "statements.jsonl"


class ProfiledConnection:
    """A connection whose every statement writes DuckDB's JSON profile to a file of its own
    in `directory` (<n>.json), listed with the step that ran it in statements.jsonl.
    Everything else is the connection's."""

    def __init__(self, con: duckdb.DuckDBPyConnection, directory: Path,
                 step: Any) -> None:
        self._con = con
        self._directory = directory
        self._step = step  # an object whose .current names the running step
        self._numbers = itertools.count(1)
        directory.mkdir(parents=True, exist_ok=True)
        con.execute("PRAGMA enable_profiling = 'json'")

    def execute(self, sql: Any, parameters: Any = None) -> duckdb.DuckDBPyConnection:
        number = next(self._numbers)
        out = self._directory / f"{number:05d}.json"
        self._con.execute("SET profiling_output = ?", [str(out)])
        result = (self._con.execute(sql) if parameters is None
                  else self._con.execute(sql, parameters))
        with open(self._directory / PROFILE_INDEX, "ab") as fh:
            fh.write(orjson.dumps({"n": number, "step": self._step.current,
                                   "sql": statement_label(sql)}) + b"\n")
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


def statement_label(sql: Any) -> str:
    """The first 160 characters of a statement, comments and line breaks left out."""
    lines = [line.strip() for line in str(getattr(sql, "query", sql)).splitlines()]
    return " ".join(x for x in lines if x and not x.startswith("--"))[:160]


def read_profile(directory: Path) -> list[dict[str, Any]]:
    """Every profiled statement: step, sql, wall and CPU seconds, peak buffer memory and
    bytes spilled (DuckDB's figures), in the order they ran."""
    out = []
    index = directory / PROFILE_INDEX
    if not index.exists():
        return out
    for line in index.read_bytes().splitlines():
        entry = orjson.loads(line)
        path = directory / f"{entry['n']:05d}.json"
        try:
            profile = orjson.loads(path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            continue  # a statement DuckDB does not profile (SET, PRAGMA, ...)
        query, system = profile.get("query", {}), profile.get("system", {})
        out.append({**entry, "seconds": query.get("total_time") or 0.0,
                    "cpu_seconds": query.get("cpu_time") or 0.0,
                    "peak_buffer_bytes": system.get("peak_buffer_memory") or 0,
                    "spilled_bytes": system.get("total_bytes_spilled") or 0})
    return out


def storage_bytes(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Bytes of each column of each table in the database file: every block a column's
    segments use (the blocks of its long strings, DuckDB's overflow and ZSTD pages,
    included), a block shared by several columns' segments divided between them by the
    share of segments. Columns of one table sum to the table's blocks; a column's
    compression is that of its values' segments (its validity mask's left out)."""
    block_size = con.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0]
    tables = [r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' AND NOT temporary "
        "ORDER BY table_name").fetchall()]
    users: dict[int, dict[tuple[str, str], int]] = defaultdict(lambda: defaultdict(int))
    compression: dict[tuple[str, str], set[str]] = defaultdict(set)
    for table in tables:
        for column, kind, segment, block, extra in con.execute(
                "SELECT column_name, compression, segment_type, block_id, "
                "additional_block_ids FROM pragma_storage_info(?) "
                "WHERE persistent AND block_id >= 0", [table]).fetchall():
            key = (table, column)
            # the compression of the values, not of the validity mask beside them
            if segment != "VALIDITY" and kind not in ("Constant", "Empty Validity"):
                compression[key].add(kind)
            for block_id in [block, *(extra or [])]:
                users[block_id][key] += 1
    sizes: dict[tuple[str, str], float] = defaultdict(float)
    for counts in users.values():
        total = sum(counts.values())
        for key, n in counts.items():
            sizes[key] += block_size * n / total
    return [{"table": t, "column": c, "bytes": int(b),
             "compression": ",".join(sorted(compression[(t, c)]))}
            for (t, c), b in sorted(sizes.items(), key=lambda kv: -kv[1])]
