"""The publish stage (etl/pipeline/publish.py).

A crash at any stage of an incremental ingest (the published database copied, its rows
replaced, the derived rows recomputed, the new file renamed into place) leaves a database
that opens whole: the previous one, or after the rename the new one; and the next ingest
builds exactly what a clean ingest of the tree builds.

The ingest runs as the real command in a child process that kills itself with SIGKILL at
the named point (etl/pipeline/interrupts.py crash_point: the environment names it), as the
OOM killer or a power cut would: no cleanup runs, no handler, no finally."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import orjson
import pytest

from etl.pipeline.interrupts import CRASH_AT_ENV
from tests.small_tree import snapshot

pytestmark = pytest.mark.slow

RUN = "ehr_bench/agentic/full1800/model_{}"


def _record(qid: str, answer: str) -> bytes:
    finish = {"id": "c1", "type": "function", "function": {
        "name": "ehr.finish", "arguments": orjson.dumps({"response": [answer]}).decode()}}
    return orjson.dumps({
        "qid": qid, "run_index": 1, "task": "labevents", "label": ["a"], "status": "success",
        "messages": [{"role": "user", "content": f"question {qid}"},
                     {"role": "assistant", "content": "", "tool_calls": [finish]},
                     {"role": "tool", "content": "ok", "tool_call_id": "c1"}]}) + b"\n"


def _ingest(root: Path, db: Path, crash_at: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != CRASH_AT_ENV}
    if crash_at:
        env[CRASH_AT_ENV] = crash_at
    return subprocess.run([sys.executable, "-m", "etl.cli", "ingest", str(root), "--db",
                           str(db), "-q", "-j", "1", "--in-progress-seconds", "0"],
                          capture_output=True, text=True, timeout=300, env=env)


def _answers(db: Path) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT run_id, qid, prediction FROM results ORDER BY ALL").fetchall()
    finally:
        con.close()


# Every file's modification time is set, so that each version of the tree is the same bytes
# and the same times whenever it is written: the clean builds it is compared with (whose
# files table holds those times) are made once for all the stages.
WRITTEN, CHANGED, APPENDED = (1_767_225_600 + i * 3600 for i in range(3))


def _write(path: Path, data: bytes, mode: str, when: int) -> None:
    with path.open(mode) as fh:
        fh.write(data)
    os.utime(path, (when, when))


def _live_tree(root: Path) -> None:
    """Three runs, ingested once (by the caller); then a live run appends a record and
    another question of a run is rewritten with a new answer, so the next ingest is
    incremental and replaces rows of two runs."""
    for m in range(3):
        run = root / RUN.format(m)
        run.mkdir(parents=True)
        _write(run / "results.jsonl", b"".join(_record(f"q{i}", "a") for i in range(20)),
               "wb", WRITTEN)


def _change(root: Path) -> None:
    _write(root / RUN.format(0) / "results.jsonl", _record("q20", "b"), "ab", CHANGED)
    _write(root / RUN.format(1) / "results.jsonl",
           b"".join(_record(f"q{i}", "b" if i == 3 else "a") for i in range(20)), "wb",
           CHANGED)


def _append(root: Path) -> None:
    _write(root / RUN.format(2) / "results.jsonl", _record("q21", "b"), "ab", APPENDED)


def _fresh(base: Path) -> tuple[Path, Path]:
    """The tree and the database at the one path every build of this module uses (the
    warehouse records its root), emptied."""
    root, db = base / "tree", base / "warehouse.duckdb"
    shutil.rmtree(root, ignore_errors=True)
    for leftover in base.glob("warehouse.duckdb*"):
        shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
    return root, db


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("publish")


@pytest.fixture(scope="module")
def clean(base: Path) -> dict[str, dict]:
    """Snapshots of what a clean ingest builds from the changed tree, and from it after one
    more append."""
    root, db = _fresh(base)
    _live_tree(root)
    _change(root)
    assert _ingest(root, db).returncode == 0
    changed = snapshot(db)
    _append(root)
    appended = base / "appended.duckdb"
    assert _ingest(root, appended).returncode == 0
    return {"changed": changed, "appended": snapshot(appended)}


@pytest.fixture()
def live_tree(base: Path, clean: dict[str, dict]) -> tuple[Path, Path]:
    """The three runs, ingested once, then changed (see _live_tree)."""
    root, db = _fresh(base)
    _live_tree(root)
    assert _ingest(root, db).returncode == 0
    _change(root)
    return root, db


@pytest.mark.parametrize("point", ["copied", "replaced", "recomputed", "built", "renamed"])
def test_crash_at_each_stage_of_an_incremental_ingest(live_tree: tuple[Path, Path],
                                                      clean: dict[str, dict],
                                                      point: str) -> None:
    root, db = live_tree
    before = _answers(db)
    crashed = _ingest(root, db, crash_at=point)
    assert crashed.returncode == -9, (point, crashed.returncode, crashed.stderr)
    after = _answers(db)  # opens whole: the old file, or past the rename the new one
    if point == "renamed":
        assert len(after) == len(before) + 1 and ("ehr_bench/agentic/full1800/model_1", "q3",
                                                  '["b"]') in after
    else:
        assert after == before
    # The crash left a temporary file behind (nothing cleans up after SIGKILL) ...
    assert any(p.name.startswith(f"{db.name}.tmp-") for p in db.parent.iterdir()) == (
        point != "renamed")
    # ... which the next ingest removes, and it builds what a clean ingest builds.
    again = _ingest(root, db)
    assert again.returncode == 0, again.stderr
    assert not [p for p in db.parent.iterdir() if p.name.startswith(f"{db.name}.tmp-")]
    assert snapshot(db) == clean["changed"]
    # And the ingest after that is incremental again: nothing is left inconsistent.
    _append(root)
    assert _ingest(root, db).returncode == 0
    assert snapshot(db) == clean["appended"]
