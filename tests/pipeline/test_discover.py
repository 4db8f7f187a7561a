"""Discover on hostile file systems: symlinks out of the root, loops, links to an ancestor of
the root, dangling links, unreadable directories, special files and path-like data.

Rules (docs/SAFETY.md):
- a symlink to a directory outside the root is followed (the real tree links
  agent_ehr_bench/agentic/subset600 outside), files keep their logical path and record the
  real one;
- a link back to a directory being walked, to the root, or to an ancestor of the root (`/`
  included) is a loop: one `rejects` row, nothing under it is walked;
- dangling links, unreadable directories and names that cannot be stat'ed are `rejects` rows
  (a dangling link refuses the ingest unless forced: tests/pipeline/test_refusals.py);
- FIFOs, sockets and devices are never opened (each is a `rejects` row);
- nothing from the data (qids, names) is used to build a path to write to.
Never a crash."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import duckdb
import orjson

from etl.pipeline.discover import discover, file_id_for
from etl.pipeline.ingest import IngestOptions, run_ingest

RUN = "ehr_bench/agentic/full1800/claude_opus_4_6"


def _record(qid: str) -> bytes:
    return orjson.dumps({"qid": qid, "run_index": 1, "task": "labevents", "label": ["a"],
                         "status": "success", "completed": True, "messages": []})


def _results(directory: Path, qids: list[str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "results.jsonl").write_bytes(b"\n".join(_record(q) for q in qids) + b"\n")


def _problems(root: Path) -> dict[str, str]:
    return {p.path: p.error for p in discover(root).problems}


def test_symlink_to_directory_outside_root_is_followed(tmp_path: Path) -> None:
    root, outside = tmp_path / "tree", tmp_path / "elsewhere" / "subset600"
    _results(outside / "kimi_k2_5", ["q1", "q2"])
    (root / "agent_ehr_bench/agentic").mkdir(parents=True)
    (root / "agent_ehr_bench/agentic/subset600").symlink_to(outside, target_is_directory=True)
    disc = discover(root)
    assert not disc.problems
    [info] = disc.files
    assert info.path == "agent_ehr_bench/agentic/subset600/kimi_k2_5/results.jsonl"
    assert info.real_path == str((outside / "kimi_k2_5/results.jsonl").resolve())
    assert info.run_id == "agent_ehr_bench/agentic/subset600/kimi_k2_5"
    assert info.file_id == file_id_for(info.path)


def test_file_reachable_through_links_is_listed_once_per_run(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    raw = root / "mm_bench/agentic/full2703/_multi_eval_raw/full5_20260101T000000Z"
    _results(raw / "kimi-k2-5", ["q1"])
    (root / "mm_bench/agentic/full2703/kimi_k2_5").symlink_to(
        "_multi_eval_raw/full5_20260101T000000Z/kimi-k2-5", target_is_directory=True)
    (root / "mm_bench/agentic/full2703/kimi_k2_5_copy").symlink_to(
        "kimi_k2_5", target_is_directory=True)
    disc = discover(root)
    # Three logical paths, one real file: the raw _multi_eval_raw path is only where the
    # links point; each of the two run directories linking to it is a run of its own.
    assert [(f.path, f.run_id) for f in disc.files] == [
        ("mm_bench/agentic/full2703/kimi_k2_5/results.jsonl",
         "mm_bench/agentic/full2703/kimi_k2_5"),
        ("mm_bench/agentic/full2703/kimi_k2_5_copy/results.jsonl",
         "mm_bench/agentic/full2703/kimi_k2_5_copy")]
    assert not disc.problems


def test_symlink_loops_are_rejects(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    _results(root / RUN, ["q1"])
    (root / RUN / "back").symlink_to("..", target_is_directory=True)
    (root / RUN / "here").symlink_to(".", target_is_directory=True)
    (root / "to_root").symlink_to(root, target_is_directory=True)
    (root / "self").symlink_to("self")  # ELOOP when stat'ed
    (root / "ping").symlink_to("pong")
    (root / "pong").symlink_to("ping")
    problems = _problems(root)
    assert set(problems) == {f"{RUN}/back", f"{RUN}/here", "to_root", "self", "ping", "pong"}
    assert "loop" in problems[f"{RUN}/back"] and "loop" in problems["to_root"]
    assert [f.path for f in discover(root).files] == [f"{RUN}/results.jsonl"]


def test_link_to_an_ancestor_of_the_root_is_a_loop_not_a_walk(tmp_path: Path) -> None:
    """A link to `/` (or to any directory that contains the root) must not walk the whole
    file system. Tested with the root's parent, which holds a file the walk must not see."""
    root = tmp_path / "tree"
    _results(root / RUN, ["q1"])
    (tmp_path / "secret.jsonl").write_bytes(b"{}\n")
    (tmp_path / "results.jsonl").write_bytes(_record("outside") + b"\n")
    (root / RUN / "up").symlink_to(tmp_path, target_is_directory=True)
    disc = discover(root)
    assert [f.path for f in disc.files] == [f"{RUN}/results.jsonl"]
    assert [p.path for p in disc.problems] == [f"{RUN}/up"]
    assert "loop" in disc.problems[0].error


def test_dangling_link_and_unreadable_directory_are_rejects(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    _results(root / RUN, ["q1"])
    (root / RUN / "steal_01").symlink_to(tmp_path / "gone", target_is_directory=True)
    (root / RUN / "merged_unique.jsonl").symlink_to(tmp_path / "gone.jsonl")
    problems = _problems(root)
    assert set(problems) == {f"{RUN}/steal_01", f"{RUN}/merged_unique.jsonl"}
    assert all("dangling" in e for e in problems.values())


NOBODY = 65534


def _problems_as_unprivileged(root: Path) -> dict[str, str]:
    """discover(root).problems as seen by a user that file modes apply to. Root reads a
    directory whatever its mode, so as root the walk runs in a forked child that first
    drops to `nobody` (a fork, not an exec: the interpreter may live where nobody cannot
    reach it)."""
    if os.geteuid() != 0:
        return _problems(root)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop privileges for good, walk, report, exit
        status = 1
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            assert os.geteuid() == NOBODY
            with os.fdopen(write_end, "wb") as out:
                out.write(orjson.dumps(_problems(root)))
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as fh:
        data = fh.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the unprivileged walk failed"
    return orjson.loads(data)


def test_unreadable_directory_is_a_reject() -> None:
    # Not under tmp_path: pytest's base directory is 0700, closed to the unprivileged user.
    base = Path(tempfile.mkdtemp(prefix="etl-discover-"))
    try:
        base.chmod(0o755)
        root = base / "tree"
        _results(root / RUN, ["q1"])
        locked = root / "ehr_bench/agentic/full1800/locked_model"
        _results(locked, ["q1"])
        locked.chmod(0)
        try:
            problems = _problems_as_unprivileged(root)
        finally:
            locked.chmod(0o755)
        assert list(problems) == ["ehr_bench/agentic/full1800/locked_model"]
        assert "cannot list" in problems["ehr_bench/agentic/full1800/locked_model"]
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_fifo_named_like_a_results_file_is_never_opened(tmp_path: Path) -> None:
    """Opening a FIFO for reading blocks forever; discover must not hand it to a reader."""
    root = tmp_path / "tree"
    _results(root / RUN, ["q1"])
    os.mkfifo(root / RUN / "merged_unique.jsonl")
    assert [f.path for f in discover(root).files] == [f"{RUN}/results.jsonl"]


def test_ingest_of_a_hostile_file_system_completes_with_rejects(tmp_path: Path) -> None:
    root, db = tmp_path / "tree", tmp_path / "warehouse.duckdb"
    outside = tmp_path / "outside"
    _results(outside, ["o1"])
    _results(root / RUN, ["q1", "../../../../escape", "/abs/path"])
    (root / "ehr_bench/agentic/full1800/linked").symlink_to(outside, target_is_directory=True)
    (root / RUN / "loop").symlink_to("..", target_is_directory=True)
    (root / RUN / "dangling").symlink_to(tmp_path / "missing")
    os.mkfifo(root / RUN / "results_steal_01.jsonl")
    before = set(tmp_path.rglob("*"))
    run_ingest(root, db, IngestOptions(jobs=1, force=True))  # forced past the dangling link
    con = duckdb.connect(str(db), read_only=True)
    try:
        results = con.execute("SELECT run_id, qid FROM results ORDER BY ALL").fetchall()
        rejects = dict(con.execute("SELECT path, error FROM rejects").fetchall())
        real = con.execute("SELECT real_path FROM files WHERE run_id = ?",
                           ["ehr_bench/agentic/full1800/linked"]).fetchall()
    finally:
        con.close()
    assert results == sorted([(RUN, "../../../../escape"), (RUN, "/abs/path"), (RUN, "q1"),
                              ("ehr_bench/agentic/full1800/linked", "o1")])
    assert set(rejects) == {f"{RUN}/loop", f"{RUN}/dangling", f"{RUN}/results_steal_01.jsonl"}
    assert real == [(str((outside / "results.jsonl").resolve()),)]
    # Path-like qids created nothing: new paths are only the database and its cache.
    created = {p.relative_to(tmp_path).parts[0] for p in set(tmp_path.rglob("*")) - before}
    assert created == {"warehouse.duckdb", "warehouse.duckdb.cache"}
    assert not Path("/abs/path").exists()
