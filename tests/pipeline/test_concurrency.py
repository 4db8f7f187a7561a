"""Crash safety and concurrency of `etl ingest` (DESIGN.md promises 2 and 3), tested on the
real command in child processes:

- SIGKILL at several points of an ingest (while parsing, after some files are staged, while
  the new database file is being written, and at the named points of the load and the
  publish): the old database opens with its old data (the new one, past the rename), and the
  next ingest succeeds and builds exactly what a clean ingest builds;
- a reader (another process) holding the database read-only during an ingest: the ingest
  succeeds, the reader keeps its consistent old view, new readers see the new data;
- two ingests at once: one waits for the other, nothing is corrupted; with the lock held and
  --wait exceeded, the ingest fails clearly (exit 3) and the database is untouched.

The kill points of the parse and the write are found from outside, by polling the files an
ingest creates (`<db>.cache/.tmp-*` parse dirs, new `<db>.cache/<file>-<sha>-...` dirs,
`<db>.tmp-<pid>` and its WAL); those of the load and the publish are named to the ingest
(crash_point), never reached by waiting a number of seconds."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import duckdb
import orjson
import pytest

from etl.pipeline.interrupts import CRASH_AT_ENV
from tests.small_tree import snapshot
from tests.waiting import SAFETY_SECONDS, wait_for

pytestmark = pytest.mark.slow  # ~30 s: every test runs the real command several times

N_MODELS, N_QUESTIONS = 4, 150
PAD = "lorem ipsum " * 200  # ~2.4 KB a message: parsing takes a measurable time


def _record(qid: str, answer: str) -> bytes:
    finish = {"id": "c1", "type": "function", "function": {
        "name": "ehr.finish", "arguments": orjson.dumps({"response": [answer]}).decode()}}
    return orjson.dumps({
        "qid": qid, "run_index": 1, "task": "labevents", "label": ["a"], "status": "success",
        "completed": True, "stop_reason": "finish_tool_call",
        "messages": [{"role": "user", "content": PAD},
                     {"role": "assistant", "content": PAD, "tool_calls": [finish]},
                     {"role": "tool", "content": PAD, "tool_call_id": "c1"}]})


def _write_tree(root: Path, version: str) -> int:
    """Version A: N_MODELS runs. Version B: every file changed (one more question) and one
    more run, so an ingest of B over A parses every file again. Returns the result count."""
    n_models = N_MODELS + (1 if version == "B" else 0)
    n_questions = N_QUESTIONS + (1 if version == "B" else 0)
    for m in range(n_models):
        run = root / f"ehr_bench/agentic/full1800/model_{m}"
        run.mkdir(parents=True)
        answer = "a" if version == "A" else "b"
        (run / "results.jsonl").write_bytes(
            b"".join(_record(f"q{i}", answer) + b"\n" for i in range(n_questions)))
    return n_models * n_questions


def _ingest_cmd(root: Path, db: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "etl.cli", "ingest", str(root), "--db", str(db), "-q",
            *extra]


def _ingest(root: Path, db: Path, *extra: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(_ingest_cmd(root, db, *extra), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Trees A and B, the warehouse of A (with its parse cache) and a clean build of B."""
    base = tmp_path_factory.mktemp("concurrency")
    counts = {v: _write_tree(base / f"tree_{v}", v) for v in ("A", "B")}
    _ingest(base / "tree_A", base / "A" / "warehouse.duckdb", "-j", "1")
    _ingest(base / "tree_B", base / "B" / "warehouse.duckdb", "-j", "1")
    return {"base": base, "counts": counts,
            "clean_B": snapshot(base / "B" / "warehouse.duckdb")}


def _fresh_db(template: dict, tmp_path: Path) -> Path:
    """A copy of the warehouse of A, with its cache, to ingest B into."""
    shutil.copytree(template["base"] / "A", tmp_path / "A")
    return tmp_path / "A" / "warehouse.duckdb"


def _results(db: Path) -> tuple[int, set[str]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        n = con.execute("SELECT count(*) FROM results").fetchall()[0][0]
        answers = {r[0] for r in con.execute("SELECT DISTINCT prediction FROM results")
                   .fetchall()}
        return n, answers
    finally:
        con.close()


def _is_a(template: dict, db: Path) -> bool:
    return _results(db) == (template["counts"]["A"], {'["a"]'})


def _is_b(template: dict, db: Path) -> bool:
    return _results(db) == (template["counts"]["B"], {'["b"]'})


def _kill_when(cmd: list[str], condition: Callable[[int], bool]) -> bool:
    """Run cmd in its own process group; SIGKILL the whole group (the ingest and its parse
    workers, as a crash or the OOM killer would) as soon as condition(pid) holds. True when
    the kill landed, False when the ingest finished first."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        wait_for(lambda: proc.poll() is not None or condition(proc.pid),
                 "the ingest reached the point or ended", every=0.002)
        if proc.poll() is not None:
            return False
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        _wait_group_gone(proc.pid)
        return True
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _wait_group_gone(pgid: int) -> None:
    """Until every process of the group is reaped. Killed parse workers are reparented to
    init and stay zombies until it reaps them (here up to ~1.5 s); a zombie still answers
    kill(pid, 0), so the ingest that follows would take it for a live worker and keep its
    parse directory."""

    def gone() -> bool:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        return False

    wait_for(gone, f"every process of group {pgid} reaped")


def _cache(db: Path) -> Path:
    return db.with_name(db.name + ".cache")


def _parsing(db: Path) -> Callable[[int], bool]:
    return lambda pid: any(p.name.startswith(".tmp-") for p in _cache(db).iterdir())


def _staged_some(db: Path) -> Callable[[int], bool]:
    before = {p.name for p in _cache(db).iterdir()}
    return lambda pid: any(p.is_dir() and not p.name.startswith(".") and p.name not in before
                           for p in _cache(db).iterdir())


def _temp_db(db: Path) -> Callable[[int], bool]:
    return lambda pid: db.with_name(f"{db.name}.tmp-{pid}").exists()


def _temp_wal(db: Path) -> Callable[[int], bool]:
    return lambda pid: db.with_name(f"{db.name}.tmp-{pid}.wal").exists()


def _recovers(template: dict, db: Path, parse_dirs_of_live_workers: bool = False) -> None:
    """After a kill: the next ingest succeeds, leaves no temporary files (but the parse dirs
    of workers still alive) and builds exactly what a clean ingest of B builds."""
    _ingest(template["base"] / "tree_B", db, "-j", "1")
    assert _is_b(template, db)
    leftovers = [p.name for p in db.parent.iterdir() if ".tmp-" in p.name]
    assert leftovers == []
    if not parse_dirs_of_live_workers:
        assert [p.name for p in _cache(db).iterdir() if p.name.startswith(".tmp-")] == []
    assert snapshot(db) == template["clean_B"]


@pytest.mark.parametrize(("point", "jobs"), [
    ("parsing", "1"), ("parsing", "2"), ("staged_some", "2"), ("temp_db", "1"),
    ("temp_wal", "1")])
def test_kill_at_a_point_leaves_the_old_database(template: dict, tmp_path: Path, point: str,
                                                 jobs: str) -> None:
    db = _fresh_db(template, tmp_path)
    condition = {"parsing": _parsing, "staged_some": _staged_some, "temp_db": _temp_db,
                 "temp_wal": _temp_wal}[point](db)
    before = {p.name for p in _cache(db).iterdir()}
    killed = _kill_when(_ingest_cmd(template["base"] / "tree_B", db, "-j", jobs), condition)
    assert killed, f"the ingest finished before reaching {point}"
    # What the killed ingest left behind proves where the kill landed (nothing cleans up
    # after a SIGKILL of the whole group): the stage it was in, not a later one.
    left = _left_behind(db, before)
    if point in ("parsing", "staged_some"):
        assert not left["temp_db"], f"killed after parsing: {left}"
        assert left["parse_dirs"] if point == "parsing" else left["new_staged"], left
    else:
        assert left["temp_db"], f"killed before the new file was written or after the " \
                                f"rename: {left}"
        if point == "temp_wal":
            assert left["temp_wal"], left
    assert _is_a(template, db), "the old database must open with its old data"
    _recovers(template, db)


def _left_behind(db: Path, cache_before: set[str]) -> dict[str, list[str]]:
    cache = [p.name for p in _cache(db).iterdir()]
    temps = [p.name for p in db.parent.iterdir() if p.name.startswith(f"{db.name}.tmp-")]
    return {"parse_dirs": [n for n in cache if n.startswith(".tmp-")],
            "new_staged": [n for n in cache if not n.startswith(".") and n not in cache_before],
            "temp_db": [n for n in temps if not n.endswith(".wal")],
            "temp_wal": [n for n in temps if n.endswith(".wal")]}


@pytest.mark.parametrize("point", ["replaced", "recomputed", "built", "renamed"])
def test_kill_in_the_load_and_the_publish_leaves_old_or_new_never_broken(
        template: dict, tmp_path: Path, point: str) -> None:
    """Killed in the load (rows replaced, derived rows recomputed) and in the publish (the
    new file built, renamed into place), as the OOM killer would, at the named point
    (etl/pipeline/interrupts.py crash_point): the database is then the old one or the new
    one, whole."""
    db = _fresh_db(template, tmp_path)
    env = {**os.environ, CRASH_AT_ENV: point}
    killed = subprocess.run(_ingest_cmd(template["base"] / "tree_B", db, "-j", "1"),
                            capture_output=True, text=True, env=env)
    assert killed.returncode == -signal.SIGKILL, (point, killed.returncode, killed.stderr)
    assert _is_b(template, db) if point == "renamed" else _is_a(template, db)
    _recovers(template, db)


def test_kill_of_the_main_process_only_with_orphaned_workers(template: dict,
                                                              tmp_path: Path) -> None:
    """kill -9 of the ingest's own pid: its parse workers outlive it for a moment, and an
    ingest started right away must still succeed."""
    db = _fresh_db(template, tmp_path)
    proc = subprocess.Popen(_ingest_cmd(template["base"] / "tree_B", db, "-j", "2"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        condition = _parsing(db)
        wait_for(lambda: proc.poll() is not None or condition(proc.pid),
                 "the ingest parsed or ended", every=0.002)
        assert proc.poll() is None, "the ingest finished before parsing was seen"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert _is_a(template, db)
        _recovers(template, db, parse_dirs_of_live_workers=True)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the orphaned workers, if any are left
        except ProcessLookupError:
            pass


READER = textwrap.dedent("""
    import sys, duckdb
    con = duckdb.connect(sys.argv[1], read_only=True)
    def answer():
        print(con.execute("SELECT count(*), min(prediction) FROM results").fetchall()[0],
              flush=True)
    answer()
    sys.stdin.readline()
    answer()
""")


def test_ingest_while_a_reader_holds_the_file(template: dict, tmp_path: Path) -> None:
    db = _fresh_db(template, tmp_path)
    reader = subprocess.Popen([sys.executable, "-c", READER, str(db)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        first = reader.stdout.readline().strip()
        assert first == f"({template['counts']['A']}, '[\"a\"]')"
        _ingest(template["base"] / "tree_B", db, "-j", "1")
        assert _is_b(template, db), "a new reader sees the new data"
        reader.stdin.write("\n")
        reader.stdin.flush()
        assert reader.stdout.readline().strip() == first, "the old reader keeps its view"
        assert reader.wait(timeout=30) == 0
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait()


def test_two_ingests_at_once(template: dict, tmp_path: Path) -> None:
    db = _fresh_db(template, tmp_path)
    # Both are started while the lock is held, and released once both wait: they meet
    # whatever the order and the speed at which the machine starts them.
    with open(db.with_name(db.name + ".lock"), "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        procs = [subprocess.Popen(_ingest_cmd(template["base"] / "tree_B", db, "-j", "1"),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        waited = [proc.stderr.readline() for proc in procs]
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    outputs = [(out, first + err) for first, (out, err) in zip(
        waited, (proc.communicate(timeout=SAFETY_SECONDS) for proc in procs), strict=True)]
    assert [proc.returncode for proc in procs] == [0, 0], outputs
    # One built the database; the other waited for it, then found nothing left to do.
    assert sorted("nothing changed" in out for out, _ in outputs) == [False, True], outputs
    assert sorted("ingested into" in out for out, _ in outputs) == [False, True], outputs
    assert any("waiting for another ingest" in err for _, err in outputs), outputs
    assert snapshot(db) == template["clean_B"]


def test_two_ingests_of_different_trees_at_once_give_one_of_them_whole(template: dict,
                                                                        tmp_path: Path) -> None:
    db = _fresh_db(template, tmp_path)
    shutil.rmtree(_cache(db))  # both parse every file
    procs = [subprocess.Popen(_ingest_cmd(template["base"] / f"tree_{v}", db, "-j", "1"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for v in ("A", "B")]
    outputs = [proc.communicate(timeout=120) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], outputs
    assert _is_a(template, db) or _is_b(template, db)
    _recovers(template, db)


def test_lock_held_too_long_fails_clearly_and_touches_nothing(template: dict,
                                                               tmp_path: Path) -> None:
    db = _fresh_db(template, tmp_path)
    before = db.read_bytes()
    with open(db.with_name(db.name + ".lock"), "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        refused = subprocess.run(_ingest_cmd(template["base"] / "tree_B", db, "--wait", "0.5"),
                                 capture_output=True, text=True, timeout=60)
        assert refused.returncode == 3, refused.stderr
        assert "another ingest is writing" in refused.stderr
        assert db.read_bytes() == before
        waiting = subprocess.Popen(_ingest_cmd(template["base"] / "tree_B", db, "-j", "1"),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert "waiting for another ingest" in waiting.stderr.readline()
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    assert _is_b(template, db)
