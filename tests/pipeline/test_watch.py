"""`etl ingest --watch` (etl/watch.py): ingests again as files change, one line per ingest,
bounded by --max-ingests / --stop-after-idle, never blocking a reader of the database, and
Ctrl-C ends it with exit status 130."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import orjson

from etl.pipeline.ingest import IngestOptions
from etl.pipeline.watch import WatchOptions, watch
from tests.small_tree import ONESHOT, assert_same_warehouse, record
from tests.small_tree import ingest as full_ingest
from tests.terminal import as_from_a_terminal

LIVE = f"{ONESHOT}/results.jsonl"




def count_w(db: Path) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT count(*) FROM results WHERE qid LIKE 'w%'").fetchone()[0]
    finally:
        con.close()


def test_watch_follows_a_writer_and_stops_when_idle(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "warehouse.duckdb"
    lines: list[str] = []
    written: list[str] = []

    def echo(line: str) -> None:
        """The writer goes on after each ingest the watcher reports, four records in all:
        each append is one the watcher has to notice, whatever the machine's speed."""
        lines.append(line)
        if len(written) < 4 and not line.startswith("watch: stopped"):
            qid = f"w{len(written)}"
            with (tree / LIVE).open("ab") as fh:
                fh.write(orjson.dumps(record(qid)) + b"\n")
            written.append(qid)

    # The watcher's own clock, moved on by its sleeps: its settling and its idle time are
    # counted in polls, never in the machine's seconds. max_ingests: a watcher that never
    # goes idle ends the test instead of hanging it.
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    report = watch(tree, db, IngestOptions(jobs=1),
                   WatchOptions(poll_seconds=0.1, settle_seconds=0.3, stop_after_idle=3.0,
                                max_ingests=50), echo=echo, sleep=sleep, clock=lambda: now[0])
    assert len(written) == 4
    assert report.stopped_because == "no change for 3s" and not report.failures
    assert len(report.ingests) >= 2  # the start, and at least once after the writer
    assert len(lines) == len(report.ingests) + 1 and lines[-1].startswith("watch: stopped")
    assert all(" ingested " in line or "nothing changed" in line for line in lines[:-1])
    assert count_w(db) == 4  # every appended record, once
    assert any(summary.n_appended for summary in report.ingests[1:])
    full = tmp_path / "full.duckdb"
    full_ingest(tree, full)
    assert_same_warehouse(db, full)


def test_watch_stops_after_max_ingests(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "warehouse.duckdb"
    lines: list[str] = []
    report = watch(tree, db, IngestOptions(jobs=1),
                   WatchOptions(poll_seconds=0.05, settle_seconds=0, max_ingests=1),
                   echo=lines.append)
    assert len(report.ingests) == 1 and report.stopped_because == "1 ingests made (the maximum)"
    assert db.exists() and len(lines) == 2


def _start_watch(tree: Path, db: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(as_from_a_terminal(
        [sys.executable, "-m", "etl.cli", "ingest", str(tree), "--db", str(db), "--jobs", "1",
         "--watch", "--poll", "0.1", "--settle", "0.2", *extra]),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_cli_watch_does_not_block_a_reader(tree: Path, tmp_path: Path) -> None:
    """A reader opens the database after the first ingest and keeps its connection: it goes
    on reading (the old file) while the watcher publishes the next ingest."""
    db = tmp_path / "warehouse.duckdb"
    proc = _start_watch(tree, db, "--max-ingests", "2")
    try:
        first = proc.stdout.readline()
        assert " ingested " in first, first + proc.stderr.read()
        reader = duckdb.connect(str(db), read_only=True)
        before = reader.execute("SELECT count(*) FROM results").fetchone()[0]
        with (tree / LIVE).open("ab") as fh:
            fh.write(orjson.dumps(record("w0")) + b"\n")
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        lines = out.splitlines()
        assert len(lines) == 2 and lines[-1] == "watch: stopped, 2 ingests made (the maximum)", out
        assert "(1 grown)" in lines[0]
        assert reader.execute("SELECT count(*) FROM results").fetchone()[0] == before
        reader.close()
        assert count_w(db) == 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_cli_watch_ctrl_c_exits_130(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "warehouse.duckdb"
    proc = _start_watch(tree, db)
    try:
        first = proc.stdout.readline()
        assert " ingested " in first, first + proc.stderr.read()
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130
        assert "watch stopped (Ctrl-C); the database holds the last ingest" in err
        assert count_w(db) == 0 and db.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_watch_options_need_watch(tree: Path, tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "etl.cli", "ingest", str(tree), "--db",
                           str(tmp_path / "w.duckdb"), "--max-ingests", "1"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "go with --watch" in proc.stderr
