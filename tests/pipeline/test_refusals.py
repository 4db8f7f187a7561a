"""Dangerous defaults of `etl ingest`: what it refuses, what it warns about, and what an
interrupted or failed run leaves behind (docs/SAFETY.md, exit codes in `etl ingest --help`).

- an empty root, or one with no result inside a run: refused (exit 5), nothing written;
- --db naming a file that is not a warehouse this tool built (README.md, a foreign DuckDB
  file): refused (exit 4), the file untouched;
- a root that holds no benchmark directory (one level too high, `demo/` for `demo/tree`, a
  repository): refused (exit 6), naming the layout expected and the directory to use;
  --force ingests it with a warning; hidden directories and virtual environments are never
  walked;
- a symlink whose target is missing (a tree copied without the target of its `subset600`
  link): refused (exit 7), naming the link and the runs it costs; --force ingests without
  it, the link a row in rejects;
- a module that fails to import while the views are made: the ingest fails, the previous
  database untouched (never "success" without views);
- Ctrl-C: "interrupted; the previous database is unchanged", exit 130, and the files parsed
  before the interrupt are reused by the next ingest;
- --full keeps the cache and the ingest history until its build has succeeded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from etl.pipeline import derive
from etl.pipeline import ingest as ingest_module
from etl.pipeline.cache import cache_root_for, read_index
from etl.pipeline.errors import IngestError
from etl.pipeline.ingest import IngestOptions, run_ingest
from tests.budgets import examples
from tests.conftest import run_etl
from tests.pipeline.one_run import INTERRUPTED_MESSAGE, RUN, one_run_tree, write_results
from tests.small_tree import assert_same_warehouse
from tests.terminal import as_from_a_terminal
from tests.waiting import wait_for


def test_empty_root_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    db = tmp_path / "w.duckdb"
    proc = run_etl("ingest", str(tmp_path / "empty"), "--db", str(db), "-q", check=False)
    assert proc.returncode == 5, proc.stderr
    assert "no results under" in proc.stderr and "Traceback" not in proc.stderr
    assert "ehr_bench|agent_ehr_bench|mm_bench|_archive" in proc.stderr
    assert not db.exists() and not cache_root_for(db).exists()


def test_root_with_files_but_no_results_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    (root / "ehr_bench").mkdir(parents=True)
    (root / "ehr_bench" / "README.md").write_text("nothing here yet\n")
    write_results(root / "ehr_bench/agentic/full1800", ["stray"])  # outside any run
    proc = run_etl("ingest", str(root), "--db", str(tmp_path / "w.duckdb"), "-q", check=False)
    assert proc.returncode == 5, proc.stderr
    assert "no results under" in proc.stderr


def test_db_that_is_not_a_warehouse_is_never_replaced(tmp_path: Path) -> None:
    root = one_run_tree(tmp_path / "tree")
    readme = tmp_path / "README.md"
    readme.write_text("# my notes\n")
    proc = run_etl("ingest", str(root), "--db", str(readme), "-q", check=False)
    assert proc.returncode == 4, proc.stderr
    assert "not a DuckDB database" in proc.stderr and str(readme) in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert readme.read_text() == "# my notes\n"
    assert not cache_root_for(readme).exists()

    foreign = tmp_path / "analysis.duckdb"
    con = duckdb.connect(str(foreign))
    con.execute("CREATE TABLE mine AS SELECT 42 AS answer")
    con.close()
    before = foreign.read_bytes()
    proc = run_etl("ingest", str(root), "--db", str(foreign), "-q", check=False)
    assert proc.returncode == 4, proc.stderr
    assert "did not build" in proc.stderr
    assert foreign.read_bytes() == before

    # A warehouse this tool built is replaced as before.
    ours = tmp_path / "warehouse.duckdb"
    run_etl("ingest", str(root), "--db", str(ours), "-q")
    write_results(root / "ehr_bench/agentic/full1800/kimi_k2_5", ["q1"])
    run_etl("ingest", str(root), "--db", str(ours), "-q")
    con = duckdb.connect(str(ours), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM runs").fetchall() == [(2,)]
    finally:
        con.close()


def _nothing_written(db: Path) -> bool:
    return not any(db.parent.glob(db.name + "*"))


def test_root_one_level_too_high_is_refused_and_names_the_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    one_run_tree(repo / "results")
    # What a repository holds besides the results: none of it is a run.
    write_results(repo / ".git/objects/ab/cd/ef", ["git1"])
    write_results(repo / ".venv/lib/python3.11/site-packages/pkg", ["venv1"])
    (repo / "venv").mkdir()
    (repo / "venv/pyvenv.cfg").write_text("home = /usr/bin\n")
    write_results(repo / "venv/lib/python3.11/site-packages/pkg", ["venv2"])
    write_results(repo / "docs/a/b/c", ["doc1"])
    db = tmp_path / "w.duckdb"
    proc = run_etl("ingest", str(repo), "--db", str(db), "-q", check=False)
    assert proc.returncode == 6, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0] == (f"Error: {repo} is not a results root: none of its directories is a "
                        f"benchmark directory.")
    assert f"  expected:  {repo}/<benchmark>/{{agentic|oneshot}}/<split>/<model>/" \
           f"results.jsonl" in lines
    assert f"  use:       {repo / 'results'}" in lines
    assert "--force" in lines[-1] and "Traceback" not in proc.stderr
    assert _nothing_written(db)
    assert run_etl("check", str(repo), check=False).returncode == 6

    forced = run_etl("ingest", str(repo), "--db", str(db), "-q", "--force")
    assert f"warning: {repo} is not a results root" in forced.stderr
    assert "ingested as it is (--force)" in forced.stderr
    assert ".git" in forced.stderr and ".venv" in forced.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        runs = [r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY 1").fetchall()]
        skipped = dict(con.execute(
            "SELECT path, severity FROM rejects WHERE severity = 'skipped'").fetchall())
    finally:
        con.close()
    # Forced from too high a root, results/ehr_bench/agentic/full1800 reads as a run: what
    # the refusal protects from.
    assert runs == ["docs/a/b/c", "results/ehr_bench/agentic/full1800"]
    assert set(skipped) == {".git", ".venv", "venv"}

    # The right root: no refusal, no warning.
    proc = run_etl("ingest", str(repo / "results"), "--db", str(tmp_path / "r.duckdb"), "-q")
    assert "warning" not in proc.stderr


def test_parent_of_the_demo_tree_is_refused_naming_the_tree(tmp_path: Path) -> None:
    """`demo/` instead of `demo/tree`: the tree and the directory its subset600 link points
    into sit side by side; neither is a benchmark directory."""
    demo = tmp_path / "demo"
    one_run_tree(demo / "tree")
    write_results(demo / "tree.external/agentehr_eval/subset600/kimi_k2_5", ["a1"])
    (demo / "tree/agent_ehr_bench/agentic").mkdir(parents=True)
    (demo / "tree/agent_ehr_bench/agentic/subset600").symlink_to(
        "../../../tree.external/agentehr_eval/subset600", target_is_directory=True)
    db = tmp_path / "w.duckdb"
    proc = run_etl("ingest", str(demo), "--db", str(db), check=False)
    assert proc.returncode == 6, proc.stderr
    assert f"  use:       {demo / 'tree'}" in proc.stderr.splitlines()
    assert _nothing_written(db)
    # --watch refuses it up front, before watching anything
    watching = run_etl("ingest", str(demo), "--db", str(db), "--watch", "--max-ingests", "1",
                       check=False, timeout=60)
    assert watching.returncode == 6 and "not a results root" in watching.stderr
    run_etl("ingest", str(demo / "tree"), "--db", str(db), "-q")
    con = duckdb.connect(str(db), read_only=True)
    try:
        runs = [r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY 1").fetchall()]
    finally:
        con.close()
    assert runs == ["agent_ehr_bench/agentic/subset600/kimi_k2_5", RUN]


def test_unknown_benchmark_with_a_mode_directory_is_a_results_root(tmp_path: Path) -> None:
    """Unknown benchmarks are data: a directory holding agentic/ or oneshot/ is one."""
    root = tmp_path / "tree"
    write_results(root / "new_bench/oneshot/full100/kimi_k2_5", ["n1"])
    db = tmp_path / "w.duckdb"
    proc = run_etl("ingest", str(root), "--db", str(db), "-q")
    assert "warning" not in proc.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT run_id, benchmark FROM runs").fetchall() == [
            ("new_bench/oneshot/full100/kimi_k2_5", "new_bench")]
    finally:
        con.close()


def test_symlink_to_a_missing_target_is_refused_naming_what_it_costs(tmp_path: Path) -> None:
    """A tree copied without the target of its subset600 link: refused, not a tree that
    silently lacks every agent_ehr_bench run."""
    root = one_run_tree(tmp_path / "copy")
    (root / "agent_ehr_bench/agentic").mkdir(parents=True)
    link = root / "agent_ehr_bench/agentic/subset600"
    link.symlink_to("../../../tree.external/agentehr_eval/subset600", target_is_directory=True)
    (root / RUN / "run.log").symlink_to(tmp_path / "gone.log")  # a file of a run, missing
    db = tmp_path / "w.duckdb"
    proc = run_etl("ingest", str(root), "--db", str(db), "-q", check=False)
    assert proc.returncode == 7, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0] == f"Error: 2 symlinks in {root} point to missing targets:"
    missing = (tmp_path / "tree.external/agentehr_eval/subset600").resolve()
    i = lines.index("  agent_ehr_bench/agentic/subset600 -> ../../../tree.external/agentehr_eval/"
                    f"subset600 (missing: {missing})")
    assert lines[i + 1] == ("      costs every agent_ehr_bench agentic run of split subset600; "
                            "agent_ehr_bench has no run left in this tree")
    i = lines.index(f"  {RUN}/run.log -> {tmp_path / 'gone.log'} (missing: "
                    f"{tmp_path / 'gone.log'})")
    assert lines[i + 1] == f"      costs a file of the run {RUN}"
    assert "--force" in lines[-1] and "Nothing was written" in lines[-1]
    assert _nothing_written(db)

    forced = run_etl("ingest", str(root), "--db", str(db), "-q", "--force")
    assert "warning: 2 symlinks" in forced.stderr and "ingested without (--force)" \
        in forced.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        rejects = [r[0] for r in con.execute(
            "SELECT path FROM rejects WHERE error LIKE 'dangling symlink%' ORDER BY 1"
        ).fetchall()]
        runs = [r[0] for r in con.execute("SELECT run_id FROM runs").fetchall()]
    finally:
        con.close()
    assert rejects == ["agent_ehr_bench/agentic/subset600", f"{RUN}/run.log"]
    assert runs == [RUN]


def test_a_derive_step_that_fails_fails_the_ingest(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A warehouse without its views (or best@k, or comparisons) is not a success: the
    ingest fails, the previous database stays, and the next ingest builds it whole."""
    root, db = one_run_tree(tmp_path / "tree"), tmp_path / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1))
    before, inode = db.read_bytes(), db.stat().st_ino
    write_results(root / "ehr_bench/agentic/full1800/kimi_k2_5", ["q1"])  # something to build

    def views_missing(con: duckdb.DuckDBPyConnection) -> None:
        raise ImportError("import of etl.views halted; None in sys.modules")

    real_steps = derive.derive_steps
    monkeypatch.setattr(ingest_module, "derive_steps",
                        lambda full: [*real_steps(full), views_missing])
    with pytest.raises(IngestError, match="import of etl.views"):
        run_ingest(root, db, IngestOptions(jobs=1))
    assert db.read_bytes() == before and db.stat().st_ino == inode
    monkeypatch.undo()
    run_ingest(root, db, IngestOptions(jobs=1))
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal "
                           "AND view_name = 'leaderboard'").fetchall() == [(1,)]
    finally:
        con.close()


def test_full_that_fails_keeps_the_cache_and_the_history(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    root, db = one_run_tree(tmp_path / "tree"), tmp_path / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1))
    index = read_index(cache_root_for(db))
    assert index["files"] and len(index["ingests"]) == 1

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr("etl.pipeline.ingest.build_database", broken)
    with pytest.raises(IngestError, match="disk full"):
        run_ingest(root, db, IngestOptions(jobs=1, full=True))
    assert read_index(cache_root_for(db)) == index
    monkeypatch.undo()
    again = run_ingest(root, db, IngestOptions(jobs=1))
    assert again.unchanged and again.n_parsed == 0

    full = run_ingest(root, db, IngestOptions(jobs=1, full=True))
    assert full.n_parsed == full.n_loadable
    after = read_index(cache_root_for(db))
    assert len(after["ingests"]) == 2  # the history survives a --full
    assert sorted(p.name for p in cache_root_for(db).iterdir() if p.is_dir()) == sorted(
        e["cache_dir"] for e in after["files"].values())


def _interrupt_after(args: list[str], cache: Path, n_done: int) -> subprocess.CompletedProcess:
    """Run `etl ingest ARGS` in its own process group and send it SIGINT (as Ctrl-C in a
    terminal does, to the whole group) once n_done files are staged in cache."""
    proc = subprocess.Popen(as_from_a_terminal([sys.executable, "-m", "etl", "ingest", *args]),
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    wait_for(lambda: proc.poll() is not None or (cache.exists() and _n_staged(cache) >= n_done),
             f"{n_done} files staged, or the ingest ended", every=0.01)
    assert proc.poll() is None, "the ingest finished before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _n_staged(cache: Path) -> int:
    return sum(1 for p in cache.iterdir() if p.is_dir() and not p.name.startswith(".")
               and (p / "stats.json").exists())


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_interrupt_keeps_the_database_and_the_work_done(demo_tree: tuple[Path, dict],
                                                        demo_db: Path, tmp_path: Path,
                                                        jobs: str) -> None:
    root, _ = demo_tree
    db = tmp_path / "w.duckdb"
    cache = cache_root_for(db)
    proc = _interrupt_after([str(root), "--db", str(db), "-q", "-j", jobs], cache, 20)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == INTERRUPTED_MESSAGE, proc.stderr
    assert "Traceback" not in proc.stderr and "Aborted" not in proc.stderr
    assert not db.exists()
    staged_before = len(read_index(cache)["files"])
    assert staged_before >= 20

    again = run_etl("ingest", str(root), "--db", str(db), "-q", "-j", jobs)
    con = duckdb.connect(str(db), read_only=True)
    try:
        n_loadable, n_parsed = con.execute(
            "SELECT (SELECT count(*) FROM files WHERE loaded), n_parsed_files FROM ingests"
        ).fetchall()[0]
    finally:
        con.close()
    assert n_parsed == n_loadable - staged_before, again.stdout
    assert_same_warehouse(db, demo_db)  # what an uninterrupted ingest builds


def test_interrupted_full_leaves_the_previous_database(demo_tree: tuple[Path, dict],
                                                       tmp_path: Path) -> None:
    root, _ = demo_tree
    db = tmp_path / "w.duckdb"
    run_etl("ingest", str(root), "--db", str(db), "-q")
    before, inode = db.read_bytes(), db.stat().st_ino
    history = read_index(cache_root_for(db))["ingests"]
    # --full re-stages into the directories the cache already has: wait for fresh ones.
    stamp = time.time()
    proc = subprocess.Popen(as_from_a_terminal([sys.executable, "-m", "etl", "ingest",
                                                str(root), "--db", str(db), "-q", "-j", "1",
                                                "--full"]), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    def fresh() -> int:
        # A staging directory is renamed into place while this counts: one that moved
        # between the listing and the stat is counted at its new name on the next look.
        count = 0
        for p in cache_root_for(db).iterdir():
            try:
                count += (p / "stats.json").stat().st_mtime > stamp
            except (FileNotFoundError, NotADirectoryError):  # moved away, or no directory
                pass
        return count

    wait_for(lambda: proc.poll() is not None or fresh() >= 10,
             "10 files staged anew, or the ingest ended", every=0.01)
    assert proc.poll() is None
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and err.strip().endswith(INTERRUPTED_MESSAGE), err
    assert db.read_bytes() == before and db.stat().st_ino == inode
    assert read_index(cache_root_for(db))["ingests"] == history
    again = run_ingest(root, db, IngestOptions())
    assert again.n_parsed == 0  # every file is in the cache, old or re-staged
    assert _n_staged(cache_root_for(db)) == again.n_loadable


# ---- the layout rule on any tree of directories --------------------------------------------
# Names from which the trees are drawn: known benchmarks, the archive, modes, a hidden
# directory and names that are none of these.
_LAYOUT_NAMES = ["ehr_bench", "mm_bench", "_archive", "agentic", "oneshot", ".git", "tree", "x"]
_KNOWN_TOPS = {"ehr_bench", "agent_ehr_bench", "mm_bench", "_archive"}


def _accepted_by_the_rule(directory: Path) -> bool:
    """The rule as docs/SAFETY.md states it: a results root holds at least one benchmark
    directory, i.e. a directory (not hidden) that is a known benchmark or the archive by
    name, or holds agentic/ or oneshot/."""
    return any(child.is_dir() and not child.name.startswith(".") and (
        child.name in _KNOWN_TOPS or (child / "agentic").is_dir()
        or (child / "oneshot").is_dir()) for child in directory.iterdir())


@given(paths=st.lists(st.lists(st.sampled_from(_LAYOUT_NAMES), min_size=1, max_size=4),
                      max_size=8),
       loose_file=st.booleans())
@example(paths=[["x", "tree", "x", "ehr_bench"], ["tree", "x"]], loose_file=False)  # 3 down
@example(paths=[[".git", "ehr_bench"], ["x", ".git", "mm_bench"]], loose_file=True)  # hidden
@settings(max_examples=examples(100), deadline=None)
def test_any_layout_is_refused_exactly_when_no_child_is_a_benchmark_directory(
        paths: list[list[str]], loose_file: bool) -> None:
    from etl.pipeline.errors import NotAResultsRoot
    from etl.pipeline.ingest import check_root

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        for parts in paths:
            root.joinpath(*parts).mkdir(parents=True, exist_ok=True)
        if loose_file:
            (root / "notes.txt").write_text("n\n")
        empty = not any(root.iterdir())
        if empty or _accepted_by_the_rule(root):
            assert check_root(root, force=False) == []
            return
        with pytest.raises(NotAResultsRoot) as refused:
            check_root(root, force=False)
        assert NotAResultsRoot.exit_code == 6
        # The directories to use: the nearest (1 to 3 levels down, not through a hidden
        # directory) that the rule accepts.
        nearest: set[Path] = set()
        for depth in (1, 2, 3):
            level = {d for d in root.glob("/".join(["*"] * depth))
                     if d.is_dir() and not any(p.startswith(".")
                                               for p in d.relative_to(root).parts)}
            nearest = {d for d in level if _accepted_by_the_rule(d)}
            if nearest:
                break
        message = str(refused.value)
        named = {Path(line.split(None, 1)[1]) for line in message.splitlines()
                 if line.startswith(("  use:", "        or "))}
        if len(nearest) <= 5:
            assert named == nearest, message
        else:
            assert len(named) == 5 and named <= nearest
        assert (not nearest) == ("no directory within 3 levels below it" in message)
        assert check_root(root, force=True)[0].startswith(f"warning: {root} is not a results")
