"""Ctrl-C during an ingest (etl/interrupts.py): one that lands in a finalizer (a ParquetWriter
closing in __del__) or inside a DuckDB query is still an interrupt, not a printed traceback
or an "ingest failed"; one that lands while the new database is published waits until the
index records it. (tests/pipeline/test_refusals.py sends SIGINT to whole ingests from outside.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import duckdb
import pytest

from etl.pipeline import ingest as ingest_module
from etl.pipeline.cache import cache_root_for, read_index
from etl.pipeline.errors import Interrupted
from etl.pipeline.ingest import IngestOptions, run_ingest
from etl.pipeline.interrupts import (
    children_ignore_ctrl_c,
    ctrl_c_handled,
    ctrl_c_held,
    ctrl_c_pressed,
    stop_if_ctrl_c,
)
from tests.pipeline.one_run import INTERRUPTED_MESSAGE, one_run_tree

# SIGINT is sent from inside __del__, and __del__ then runs long enough for Python to act on
# it there: the KeyboardInterrupt is raised inside the finalizer. After it, the main code
# runs a loop that only ends early if the interrupt reaches it.
SCRIPT = """
import os, signal, sys, time
# Ctrl-C as a terminal delivers it, however the suite was started (a background job of a
# non-interactive shell, nohup, a CI runner starts its children with SIGINT ignored).
signal.signal(signal.SIGINT, signal.default_int_handler)
{setup}

class ClosesItself:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            pass

{enter}
    try:
        obj = ClosesItself()
        del obj
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            pass
        print("not interrupted")
    except KeyboardInterrupt:
        print("interrupted")
print("restored", sys.unraisablehook is sys.__unraisablehook__,
      signal.getsignal(signal.SIGINT) is signal.default_int_handler)
"""

CASES = {
    "plain python": ("", "if True:"),
    "inside ctrl_c_handled": ("from etl.pipeline.interrupts import ctrl_c_handled",
                              "with ctrl_c_handled():"),
}

# Ctrl-C comes 0.3 s into it. DuckDB either stops it ("Query interrupted") or, at times,
# clears the interrupt and runs it to its end (a few seconds): both must end as Ctrl-C.
LONG_QUERY = "SELECT count(*) FROM range(400000000) t(x) WHERE x % 7 = 3"


def _run(case: str) -> subprocess.CompletedProcess:
    setup, enter = CASES[case]
    return subprocess.run([sys.executable, "-c", SCRIPT.format(setup=setup, enter=enter)],
                          capture_output=True, text=True, timeout=60)


def _sigint_in(seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_plain_python_prints_the_interrupt_and_loses_it() -> None:
    """What the hook is for: without it, the interrupt is printed and the code goes on."""
    proc = _run("plain python")
    assert "Exception ignored" in proc.stderr and "KeyboardInterrupt" in proc.stderr
    assert proc.stdout.splitlines()[0] == "not interrupted"


def test_interrupt_in_a_finalizer_reaches_the_main_code() -> None:
    proc = _run("inside ctrl_c_handled")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.splitlines() == ["interrupted", "restored True True"]


def test_other_unraisable_errors_still_reach_the_previous_hook() -> None:
    code = ("from etl.pipeline.interrupts import ctrl_c_handled\n"
            "class Bad:\n    def __del__(self):\n        raise ValueError('boom in del')\n"
            "with ctrl_c_handled():\n    b = Bad()\n    del b\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert "Exception ignored" in proc.stderr and "boom in del" in proc.stderr


def test_ctrl_c_during_a_query_is_known_whatever_duckdb_makes_of_it() -> None:
    con = duckdb.connect()
    with ctrl_c_handled():
        assert not ctrl_c_pressed()
        stop_if_ctrl_c()  # nothing pressed: nothing raised
        timer = _sigint_in(0.3)
        try:
            con.execute(LONG_QUERY).fetchall()
        except Exception as exc:  # noqa: BLE001 - DuckDB's own error for Ctrl-C
            assert "interrupt" in str(exc).lower(), exc
        timer.join()
        assert ctrl_c_pressed()
        with pytest.raises(KeyboardInterrupt):
            stop_if_ctrl_c()
    assert not ctrl_c_pressed()  # outside the block nothing is watched
    con.close()


def test_ctrl_c_held_lets_the_block_finish_and_says_so() -> None:
    with ctrl_c_handled():
        with ctrl_c_held() as interrupted:
            assert not interrupted()
            os.kill(os.getpid(), signal.SIGINT)
            finished = True  # reached: the signal was held, not raised
        assert finished and interrupted()
        with pytest.raises(KeyboardInterrupt):  # once the block is over, Ctrl-C is raised
            os.kill(os.getpid(), signal.SIGINT)
            threading.Event().wait(5)


def test_ctrl_c_during_the_load_is_an_interrupt_not_a_failure(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    root, db = one_run_tree(tmp_path / "tree"), tmp_path / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1))
    before = db.read_bytes()
    real_build = ingest_module.build_database

    def build_then_query_until_stopped(con: duckdb.DuckDBPyConnection, *args: object,
                                       **kwargs: object) -> None:
        real_build(con, *args, **kwargs)
        timer = _sigint_in(0.3)
        try:
            con.execute(LONG_QUERY).fetchall()
        finally:
            timer.join()

    monkeypatch.setattr(ingest_module, "build_database", build_then_query_until_stopped)
    with pytest.raises(Interrupted) as caught:
        run_ingest(root, db, IngestOptions(jobs=1, full=True))
    assert str(caught.value) == INTERRUPTED_MESSAGE
    assert db.read_bytes() == before
    assert not list(tmp_path.glob("w.duckdb.tmp-*"))


def test_ctrl_c_while_publishing_waits_for_the_index(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root, db = one_run_tree(tmp_path / "tree"), tmp_path / "w.duckdb"
    real_publish = ingest_module.publish

    def publish_pressed(temp: Path, target: Path) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C just as the rename begins
        real_publish(temp, target)

    monkeypatch.setattr(ingest_module, "publish", publish_pressed)
    with pytest.raises(Interrupted) as caught:
        run_ingest(root, db, IngestOptions(jobs=1))
    assert str(caught.value) == (
        f"interrupted once the new database was in place; {db} holds this ingest, complete")
    index = read_index(cache_root_for(db))
    assert len(index["ingests"]) == 1 and index["last"]  # the index records the ingest
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM results").fetchall() == [(2,)]
        assert con.execute("SELECT count(*) FROM ingests WHERE finished_at IS NOT NULL"
                           ).fetchall() == [(1,)]
    finally:
        con.close()
    monkeypatch.undo()
    assert run_ingest(root, db, IngestOptions(jobs=1)).unchanged


def test_processes_started_for_the_parse_ignore_ctrl_c_from_birth() -> None:
    """A spawned parse worker imports the etl package before any initializer runs: it must
    ignore SIGINT from its start, and the parent get its own handler back at once."""
    show = [sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT))"]
    with ctrl_c_handled():
        ours = signal.getsignal(signal.SIGINT)
        with children_ignore_ctrl_c():
            inside = subprocess.run(show, capture_output=True, text=True, check=True).stdout
        assert signal.getsignal(signal.SIGINT) is ours
        after = subprocess.run(show, capture_output=True, text=True, check=True).stdout
    assert inside.strip() == str(signal.SIG_IGN)  # as a child prints it
    assert after.strip() == "<built-in function default_int_handler>"
