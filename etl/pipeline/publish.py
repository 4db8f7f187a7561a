"""Publish stage: make a finished database the current one, atomically, and keep two
ingests from building at once.

The new database is written to a temporary file beside the target, checkpointed and closed,
then renamed over the target. A crash or kill before the rename leaves the old file intact;
readers that hold the old file open keep reading it (on POSIX the rename does not touch the
open inode) and new readers see the new file."""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from etl.connection import MARKER_TABLE, has_warehouse_marker
from etl.pipeline.cache import alive, cache_root_for, read_index
from etl.pipeline.errors import IngestLocked, NotAWarehouse

# The first bytes of every DuckDB database file: 8 bytes of checksum, then this magic.
DUCKDB_MAGIC_OFFSET, DUCKDB_MAGIC = 8, b"DUCK"


def check_replaceable(target: Path) -> None:
    """Refuse to replace target unless it is absent or a warehouse this tool built: a DuckDB
    file (magic bytes) holding the `ingests` table with its `tool_version` column. A DuckDB
    file another process holds open read-write cannot be opened to check; it is accepted when
    the parse cache beside it records an ingest of it (this tool built it)."""
    if not target.exists() and not target.is_symlink():
        return
    if not target.is_file():
        raise NotAWarehouse(f"--db {target} exists and is not a regular file; refusing to "
                            f"replace it")
    if _is_last_published(target):
        return  # the very file this tool renamed into place, untouched since: no need to open it
    try:
        with open(target, "rb") as fh:
            head = fh.read(DUCKDB_MAGIC_OFFSET + len(DUCKDB_MAGIC))
    except OSError as exc:
        raise NotAWarehouse(f"--db {target} cannot be read ({exc.strerror}); refusing to "
                            f"replace it") from exc
    if head[DUCKDB_MAGIC_OFFSET:] != DUCKDB_MAGIC:
        raise NotAWarehouse(f"--db {target} exists and is not a DuckDB database; refusing to "
                            f"replace it (choose another --db, or delete the file yourself)")
    try:
        con = duckdb.connect(str(target), read_only=True)
    except duckdb.Error as exc:
        if "lock" in str(exc).lower() and _cache_records_ingest(target):
            return
        raise NotAWarehouse(f"--db {target} is a DuckDB file that cannot be opened to check "
                            f"it is a warehouse of this tool ({exc}); refusing to replace it"
                            ) from exc
    try:
        found = has_warehouse_marker(con)
    finally:
        con.close()
    if not found:
        raise NotAWarehouse(f"--db {target} is a DuckDB database this tool did not build (no "
                            f"{MARKER_TABLE} table); refusing to replace it")


def published_stat(target: Path) -> list[int]:
    """What identifies the file an ingest published (size, mtime, inode): recorded in the
    parse cache index, so the next ingest knows the file is still the one it wrote without
    opening it (0.35 s of a no-op ingest)."""
    st = target.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _is_last_published(target: Path) -> bool:
    recorded = read_index(cache_root_for(target)).get("published")
    try:
        return recorded is not None and recorded == published_stat(target)
    except OSError:
        return False


def _cache_records_ingest(target: Path) -> bool:
    return bool(read_index(cache_root_for(target)).get("ingests"))


def temp_path_for(target: Path) -> Path:
    return target.with_name(f"{target.name}.tmp-{os.getpid()}")


def clean_stale_temps(target: Path) -> None:
    """Remove temporary files left by killed ingests (their process is gone)."""
    for path in target.parent.glob(f"{target.name}.tmp-*"):
        pid_text = path.name.rsplit("-", 1)[-1].split(".")[0]
        if pid_text.isdigit() and not alive(int(pid_text)):
            path.unlink(missing_ok=True)


@contextmanager
def ingest_lock(target: Path, wait_seconds: float,
                on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """An exclusive lock on `<db>.lock`: a second ingest of the same database waits up to
    wait_seconds for the first to finish (telling on_wait once), then fails with a clear
    message."""
    lock_path = target.with_name(target.name + ".lock")
    fh = open(lock_path, "a+")
    deadline = time.monotonic() + wait_seconds
    told = False
    try:
        while True:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise IngestLocked(
                        f"another ingest is writing {target} (lock {lock_path}); "
                        f"gave up after {wait_seconds:.0f}s. Retry when it has finished, "
                        f"or pass --wait SECONDS.") from None
                if not told and on_wait is not None:
                    on_wait(f"waiting for another ingest of {target} to finish ...")
                told = True
                time.sleep(0.2)
        yield
    finally:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
        finally:
            fh.close()


def publish(temp: Path, target: Path) -> None:
    """fsync the finished file, rename it over the target and fsync the directory."""
    fd = os.open(temp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    # A WAL left beside the target belongs to the OLD file; replaying it into the new one
    # would corrupt it. Our files are checkpointed on close, so a WAL here is stale.
    wal = target.with_name(target.name + ".wal")
    if wal.exists():
        wal.replace(target.with_name(f"{target.name}.wal.stale-{int(time.time())}"))
    os.replace(temp, target)
    dir_fd = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def copy_published(target: Path, temp: Path) -> None:
    """Copy the published database to the temporary file an incremental ingest updates. The
    kernel copies the bytes (copy_file_range / sendfile through shutil), and readers that
    hold the published file open are not disturbed: it is only read."""
    shutil.copyfile(target, temp)
