"""The one way the warehouse is opened for reading: `open_warehouse(path)`.

Every reader (the notebook API, the leaderboard, lineage, search, compare, query, report,
export, the explorer, its bench, the BI probe, `etl check`) opens the file here, so each
gets the same guarantees:

- read-only, so it works next to a BI tool holding the file and can never change it;
- no file, glob, URL or extension access from SQL (`enable_external_access=false`),
  extension autoload / autoinstall off, and `lock_configuration=true` so no statement can
  undo any of it (etl/query.py relies on these for `etl query`);
- a clear refusal (WarehouseUnavailable) for a missing path, a file DuckDB cannot open, and a
  DuckDB file this tool did not build (no `ingests` table with its `tool_version` column:
  the marker the ingest also checks before it replaces a file).

This module imports nothing but duckdb and the standard library (and etl.errors), so the BI
probe (etl/bi.py) still runs under any DuckDB client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from etl.errors import EtlError, first_line

# Settings applied when the connection is opened; lock_configuration makes them final.
SAFE_CONFIG: dict[str, Any] = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "allow_community_extensions": False,
    "lock_configuration": True,
}

# The table every warehouse this tool builds carries (schema/00_core.sql): its marker.
MARKER_TABLE, MARKER_COLUMN = "ingests", "tool_version"


class WarehouseUnavailable(EtlError):
    """The warehouse file cannot be read: missing, not a DuckDB file DuckDB can open, or a
    DuckDB file this tool did not build. The message says which and what to do."""

    exit_code = 2


class BadSetting(EtlError):
    """DuckDB refused a setting the connection was asked to use (a --memory-limit it cannot
    parse, ...); the message is DuckDB's."""


def has_warehouse_marker(con: duckdb.DuckDBPyConnection) -> bool:
    """True when the database holds the marker of a warehouse built by this tool."""
    return con.execute(
        "SELECT count(*) FROM duckdb_columns() WHERE schema_name = 'main' "
        "AND table_name = ? AND column_name = ?", [MARKER_TABLE, MARKER_COLUMN]
    ).fetchall()[0][0] > 0


def _connect(path: Path, resources: dict[str, Any] | None, files_in: Path | None
             ) -> duckdb.DuckDBPyConnection:
    if files_in is None:
        return duckdb.connect(str(path), read_only=True,
                              config={**(resources or {}), **SAFE_CONFIG})
    # The allowed directory must be set before external access is turned off, and the
    # lock last (DuckDB refuses the setting afterwards).
    late = ("enable_external_access", "lock_configuration")
    con = duckdb.connect(str(path), read_only=True, config={
        **(resources or {}), **{k: v for k, v in SAFE_CONFIG.items() if k not in late}})
    try:
        con.execute("SET allowed_directories = $dirs", {"dirs": [f"{files_in}/"]})
        for name in late:
            con.execute(f"SET {name} = {str(SAFE_CONFIG[name]).lower()}")  # fixed names
    except BaseException:
        con.close()
        raise
    return con


def open_warehouse(db_path: str | Path, resources: dict[str, Any] | None = None,
                   files_in: Path | None = None, own_queries_only: bool = False
                   ) -> duckdb.DuckDBPyConnection:
    """Open the warehouse file read-only with file access and configuration changes disabled.

    `resources`: extra settings that only bound what the connection may use (memory_limit,
    threads, ...); the safety settings of SAFE_CONFIG always win over them. DuckDB shares one
    database per file within a process and refuses a second connection with other settings,
    so every connection of one process to one file must pass the same resources.
    `files_in`: the one directory whose files the connection may read and write (the
    export's Parquet); every other path stays refused.
    `own_queries_only`: the caller runs only its own fixed queries, never SQL a user wrote
    (the leaderboard, lineage, the report, the export, the BI probe, `etl check`). Such a
    reader may join a plain read-only connection this process already holds to the file (a
    notebook's `duckdb.connect(path, read_only=True)`: DuckDB allows one configuration per
    file and process) instead of failing; it is still read-only. The settings above guard
    SQL written by a user, which such a reader never runs.
    Raises WarehouseUnavailable when the file is missing, cannot be opened, or is not a
    warehouse built by this tool; BadSetting when DuckDB refuses a setting of resources."""
    path = Path(db_path)
    build = f"build it with `etl ingest ROOT --db {path}`"
    if not path.exists():
        raise WarehouseUnavailable(f"database not found: {path} ({build})")
    if not path.is_file():
        raise WarehouseUnavailable(f"database path is not a file: {path}")
    try:
        try:
            con = _connect(path, resources, files_in)
        except duckdb.ConnectionException as error:
            if not own_queries_only or "different configuration" not in str(error):
                raise
            con = duckdb.connect(str(path), read_only=True)
    except duckdb.IOException as error:
        foreign = ("not a valid DuckDB database" in str(error)) * (
            f" (not a warehouse built by this tool; {build})")
        raise WarehouseUnavailable(
            f"cannot open database {path}: {first_line(error)}{foreign}") from None
    except duckdb.Error as error:
        if resources:
            settings = ", ".join(f"{k}={v}" for k, v in resources.items())
            raise BadSetting(f"cannot open database {path} with {settings}: "
                             f"{first_line(error)}") from None
        raise WarehouseUnavailable(
            f"cannot open database {path}: {first_line(error)}") from None
    try:
        marked = has_warehouse_marker(con)
    except duckdb.Error as error:
        con.close()
        raise WarehouseUnavailable(
            f"cannot read database {path}: {first_line(error)}") from None
    if not marked:
        con.close()
        raise WarehouseUnavailable(
            f"{path} is a DuckDB database, but not a warehouse built by this tool (it has no "
            f"{MARKER_TABLE} table); {build}, or give the warehouse's path with --db")
    return con
