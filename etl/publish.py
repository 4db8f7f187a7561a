"""Publish stage: make a finished database the current one, atomically, and keep two
ingests from building at once.

The new database is written to a temporary file beside the target, checkpointed and closed,
then renamed over the target. A crash or kill before the rename leaves the old file intact;
readers that hold the old file open keep reading it (on POSIX the rename does not touch the
open inode) and new readers see the new file."""

from __future__ import annotations

import errno
import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click


class IngestLocked(click.ClickException):
    exit_code = 3


def temp_path_for(target: Path) -> Path:
    return target.with_name(f"{target.name}.tmp-{os.getpid()}")


def clean_stale_temps(target: Path) -> None:
    """Remove temporary files left by killed ingests (their process is gone)."""
    for path in target.parent.glob(f"{target.name}.tmp-*"):
        pid_text = path.name.rsplit("-", 1)[-1].split(".")[0]
        if pid_text.isdigit() and not alive(int(pid_text)):
            path.unlink(missing_ok=True)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError as exc:
        return exc.errno == errno.EPERM
    try:  # a killed process stays a zombie until reaped: dead for our purpose
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


@contextmanager
def ingest_lock(target: Path, wait_seconds: float) -> Iterator[None]:
    """An exclusive lock on `<db>.lock`: a second ingest of the same database waits up to
    wait_seconds for the first to finish, then fails with a clear message."""
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
                if not told:
                    click.echo(f"waiting for another ingest of {target} to finish ...",
                               err=True)
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
