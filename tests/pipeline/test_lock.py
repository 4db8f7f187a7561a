"""The ingest lock (`<db>.lock`, etl/pipeline/publish.py): nothing is left beside the database
after an ingest, and removing the file on release does not let two ingests in at once.

The danger of removing a lock file: a waiter that opened the old file wins the lock on it once
the holder lets go, while a newcomer creates a new file at the path and locks that one; both
would go on. The lock checks, once won, that the path still names the file it locked."""

from __future__ import annotations

import fcntl
import threading
import time
from pathlib import Path

import orjson
import pytest

from etl.pipeline import publish
from etl.pipeline.errors import IngestLocked
from etl.pipeline.publish import ingest_lock
from tests.conftest import run_etl
from tests.waiting import SAFETY_SECONDS

RUN = "ehr_bench/agentic/full1800/claude_opus_4_6"


def test_no_lock_file_is_left_beside_the_database(tmp_path: Path) -> None:
    run_dir = tmp_path / "tree" / RUN
    run_dir.mkdir(parents=True)
    (run_dir / "results.jsonl").write_bytes(orjson.dumps(
        {"qid": "q1", "run_index": 1, "task": "labevents", "label": ["a"],
         "messages": []}) + b"\n")
    db = tmp_path / "out" / "w.duckdb"
    run_etl("ingest", str(tmp_path / "tree"), "--db", str(db), "-q")
    run_etl("ingest", str(tmp_path / "tree"), "--db", str(db), "-q")  # nothing changed
    assert sorted(p.name for p in db.parent.iterdir()) == ["w.duckdb", "w.duckdb.cache"]


def test_a_waiter_on_the_removed_file_does_not_share_the_lock(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """A holds the lock; B waits on the same file; A finishes (the file is removed); B must
    then hold the lock on the file at the path, so that C, arriving now, waits."""
    monkeypatch.setattr(publish, "LOCK_POLL_SECONDS", 0.01)
    db = tmp_path / "w.duckdb"
    lock_path = tmp_path / "w.duckdb.lock"
    b_waits, b_holds, b_may_go = threading.Event(), threading.Event(), threading.Event()
    held_by_b: list[tuple[int, int]] = []

    def b() -> None:
        with ingest_lock(db, SAFETY_SECONDS, on_wait=lambda _: b_waits.set()):
            st = lock_path.stat()
            held_by_b.append((st.st_dev, st.st_ino))
            b_holds.set()
            b_may_go.wait(SAFETY_SECONDS)

    with ingest_lock(db, 0):
        waiter = threading.Thread(target=b)
        waiter.start()
        assert b_waits.wait(SAFETY_SECONDS), "B never waited for A"
    # A is done: its file is gone; B goes on, on a file at the path.
    assert b_holds.wait(SAFETY_SECONDS)
    assert held_by_b and lock_path.exists()
    assert (lock_path.stat().st_dev, lock_path.stat().st_ino) == held_by_b[0]
    with pytest.raises(IngestLocked, match="another ingest is writing"):
        with ingest_lock(db, 0.2):  # C
            pass
    b_may_go.set()
    waiter.join(SAFETY_SECONDS)
    assert not lock_path.exists()


def test_ingests_in_many_threads_never_overlap(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Each of 6 threads takes the lock 25 times; inside, it checks nobody else is inside.
    flock locks are per open file, so threads contend as processes do."""
    monkeypatch.setattr(publish, "LOCK_POLL_SECONDS", 0.0005)
    db = tmp_path / "w.duckdb"
    inside: list[int] = []
    overlaps: list[tuple[int, ...]] = []
    guard = threading.Lock()

    def worker(n: int) -> None:
        for _ in range(25):
            with ingest_lock(db, SAFETY_SECONDS):
                with guard:
                    inside.append(n)
                    if len(inside) > 1:
                        overlaps.append(tuple(inside))
                time.sleep(0.001)
                with guard:
                    inside.remove(n)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(SAFETY_SECONDS)
    assert overlaps == []
    assert not (tmp_path / "w.duckdb.lock").exists()


def test_a_lock_held_by_another_tool_is_respected_and_not_removed(tmp_path: Path) -> None:
    """Someone holding `<db>.lock` the plain way (open + flock, as older versions of this tool
    did) keeps the ingest out; when they release it, the ingest takes it."""
    db = tmp_path / "w.duckdb"
    lock_path = tmp_path / "w.duckdb.lock"
    with open(lock_path, "a+") as other:
        fcntl.flock(other.fileno(), fcntl.LOCK_EX)
        with pytest.raises(IngestLocked):
            with ingest_lock(db, 0.3):
                pass
        assert lock_path.exists()  # a refused ingest removes nothing
        fcntl.flock(other.fileno(), fcntl.LOCK_UN)
        with ingest_lock(db, 5):
            assert lock_path.exists()
    assert not lock_path.exists()
