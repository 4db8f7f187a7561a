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
from typing import IO

import duckdb

from etl.connection import MARKER_TABLE, has_warehouse_marker
from etl.pipeline.cache import alive, cache_root_for, read_index
from etl.pipeline.errors import IngestFailed, IngestLocked, NotAWarehouse

# The first bytes of every DuckDB database file: 8 bytes of checksum, then this magic.
DUCKDB_MAGIC_OFFSET, DUCKDB_MAGIC = 8, b"DUCK"
LOCK_POLL_SECONDS = 0.2  # how often a waiting ingest tries the lock again


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


def written_through(db: Path) -> Path:
    """The file an ingest of --db builds and replaces: db itself, or when db is a symlink
    its final target, so the link stays a link and the file it points to gets the new
    database (renamed over it atomically, beside it). A link that loops is left to
    check_replaceable, which refuses it as not a regular file."""
    if not db.is_symlink():
        return db
    try:
        return Path(os.path.realpath(db, strict=False))
    except OSError:
        return db


def writable_directory(target: Path) -> None:
    """Refuse, in one line, a --db whose directory cannot be written: the new database, its
    lock and its parse cache are all made beside it."""
    directory = target.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / f".{target.name}.probe-{os.getpid()}"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise IngestFailed(
            f"cannot write in {directory} ({exc.strerror or exc}): the new database, its "
            f"lock and its parse cache are made beside --db {target}; choose a --db in a "
            "directory you can write") from None


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
    """Remove temporary files left by killed ingests (their process is gone) and by earlier
    ingests of this very process (a --watch whose ingest failed): the new database, its
    WAL, and the directory DuckDB spilled to (<db>.tmp-<pid>.tmp). Called under the lock,
    so no live ingest of this database owns them."""
    for path in target.parent.glob(f"{target.name}.tmp-*"):
        pid_text = path.name.rsplit("-", 1)[-1].split(".")[0]
        if pid_text.isdigit() and (int(pid_text) == os.getpid() or not alive(int(pid_text))):
            _remove(path)


def remove_temp(temp: Path) -> None:
    """Remove what a failed build leaves beside the target: the temporary database, its WAL
    (a disk that filled mid-write leaves one) and DuckDB's spill directory."""
    for path in (temp, temp.with_name(temp.name + ".wal"),
                 temp.with_name(temp.name + ".tmp")):
        _remove(path)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


@contextmanager
def ingest_lock(target: Path, wait_seconds: float,
                on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """An exclusive lock on `<db>.lock`: a second ingest of the same database waits up to
    wait_seconds for the first to finish (telling on_wait once), then fails with a clear
    message. The lock file is removed when the lock is released (nothing is left beside the
    database), which takes care: see _lock_named_file."""
    lock_path = target.with_name(target.name + ".lock")
    deadline = time.monotonic() + wait_seconds
    told = False

    def waiting() -> None:
        nonlocal told
        if time.monotonic() >= deadline:
            raise IngestLocked(
                f"another ingest is writing {target} (lock {lock_path}); "
                f"gave up after {wait_seconds:.0f}s. Retry when it has finished, "
                f"or pass --wait SECONDS.")
        if not told and on_wait is not None:
            on_wait(f"waiting for another ingest of {target} to finish ...")
        told = True
        time.sleep(LOCK_POLL_SECONDS)

    fh = _lock_named_file(lock_path, waiting)
    try:
        yield
    finally:
        try:
            # Removed while still locked, and only when the path is still this file: a
            # waiter then holds a lock on a file no longer at the path and starts again.
            if _names(lock_path, fh.fileno()):
                lock_path.unlink(missing_ok=True)
        finally:
            fh.close()  # releases the lock


def _lock_named_file(lock_path: Path, waiting: Callable[[], None]) -> IO[str]:
    """Open lock_path and lock it, calling waiting() while another process holds it; return
    the open file once this process holds the lock AND the path still names the locked file.

    Why the second condition: the holder removes the file when it is done. A waiter that had
    opened it before wins the lock on a file no longer at the path, while a newcomer creates
    a new file at the path and locks that one: both would go on. So whoever wins a lock
    checks that the path still names the file (same device and inode) and otherwise starts
    again on the file now there. The holder removes the file before it releases the lock,
    and nobody else removes it, so the path never names a file other than the one locked by
    the only process that passed the check."""
    while True:
        fh = open(lock_path, "a+")  # held open as long as the lock
        try:
            while True:
                try:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    waiting()
            if _names(lock_path, fh.fileno()):
                return fh
        except BaseException:
            fh.close()
            raise
        fh.close()  # the file was removed (or replaced) while we waited: lock the new one


def _names(path: Path, fd: int) -> bool:
    """path names the open file fd (the same device and inode)."""
    try:
        at_path = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (at_path.st_dev, at_path.st_ino) == (held.st_dev, held.st_ino)


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
