"""Dangerous defaults of `etl ingest`: what it refuses, what it warns about, and what an
interrupted or failed run leaves behind (docs/SAFETY.md, exit codes in `etl ingest --help`).

- an empty root, or one with no result inside a run: refused (exit 5), nothing written;
- --db naming a file that is not a warehouse this tool built (README.md, a foreign DuckDB
  file): refused (exit 4), the file untouched;
- a root one level too high (a repository): hidden directories and virtual environments are
  not walked, and a warning names the layout expected;
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
import time
from pathlib import Path

import duckdb
import orjson
import pytest

from etl.pipeline import derive
from etl.pipeline import ingest as ingest_module
from etl.pipeline.cache import cache_root_for, read_index
from etl.pipeline.errors import IngestError
from etl.pipeline.ingest import IngestOptions, run_ingest
from tests.conftest import run_etl
from tests.test_incremental import assert_same_warehouse

RUN = "ehr_bench/agentic/full1800/claude_opus_4_6"
INTERRUPTED_MESSAGE = "interrupted; the previous database is unchanged"  # the promised words


def _results(directory: Path, qids: list[str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "results.jsonl").write_bytes(b"".join(orjson.dumps(
        {"qid": q, "run_index": 1, "task": "labevents", "label": ["a"], "status": "success",
         "completed": True, "messages": []}) + b"\n" for q in qids))


def _tree(root: Path) -> Path:
    _results(root / RUN, ["q1", "q2"])
    return root


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
    _results(root / "ehr_bench/agentic/full1800", ["stray"])  # outside any run
    proc = run_etl("ingest", str(root), "--db", str(tmp_path / "w.duckdb"), "-q", check=False)
    assert proc.returncode == 5, proc.stderr
    assert "no results under" in proc.stderr


def test_db_that_is_not_a_warehouse_is_never_replaced(tmp_path: Path) -> None:
    root = _tree(tmp_path / "tree")
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
    _results(root / "ehr_bench/agentic/full1800/kimi_k2_5", ["q1"])
    run_etl("ingest", str(root), "--db", str(ours), "-q")
    con = duckdb.connect(str(ours), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM runs").fetchall() == [(2,)]
    finally:
        con.close()


def test_root_one_level_too_high_warns_and_skips_hidden_and_venv_dirs(tmp_path: Path
                                                                      ) -> None:
    repo = tmp_path / "repo"
    _tree(repo / "results")
    # What a repository holds besides the results: none of it is a run.
    _results(repo / ".git/objects/ab/cd/ef", ["git1"])
    _results(repo / ".venv/lib/python3.11/site-packages/pkg", ["venv1"])
    (repo / "venv").mkdir()
    (repo / "venv/pyvenv.cfg").write_text("home = /usr/bin\n")
    _results(repo / "venv/lib/python3.11/site-packages/pkg", ["venv2"])
    _results(repo / "docs/a/b/c", ["doc1"])  # unknown layouts still load, with a warning
    db = tmp_path / "w.duckdb"
    proc = run_etl("ingest", str(repo), "--db", str(db), "-q")
    assert f"warning: {repo} holds none of ehr_bench/, agent_ehr_bench/, mm_bench/, " \
           f"_archive/" in proc.stderr
    assert f"did you mean {repo / 'results'}?" in proc.stderr
    assert ".git" in proc.stderr and ".venv" in proc.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        runs = [r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY 1").fetchall()]
        skipped = dict(con.execute(
            "SELECT path, severity FROM rejects WHERE severity = 'skipped'").fetchall())
    finally:
        con.close()
    # From too high a root, results/ehr_bench/agentic/full1800 reads as a run: the warning
    # above is what tells the user.
    assert runs == ["docs/a/b/c", "results/ehr_bench/agentic/full1800"]
    assert set(skipped) == {".git", ".venv", "venv"}

    # The right root: no warning.
    proc = run_etl("ingest", str(repo / "results"), "--db", str(tmp_path / "r.duckdb"), "-q")
    assert "warning" not in proc.stderr


def test_a_derive_step_that_fails_fails_the_ingest(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A warehouse without its views (or best@k, or comparisons) is not a success: the
    ingest fails, the previous database stays, and the next ingest builds it whole."""
    root, db = _tree(tmp_path / "tree"), tmp_path / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1))
    before, inode = db.read_bytes(), db.stat().st_ino
    _results(root / "ehr_bench/agentic/full1800/kimi_k2_5", ["q1"])  # something to build

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
    root, db = _tree(tmp_path / "tree"), tmp_path / "w.duckdb"
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
    proc = subprocess.Popen([sys.executable, "-m", "etl", "ingest", *args], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        done = [p for p in cache.iterdir() if p.is_dir() and not p.name.startswith(".")
                and (p / "stats.json").exists()] if cache.exists() else []
        if len(done) >= n_done:
            break
        time.sleep(0.01)
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
    proc = subprocess.Popen([sys.executable, "-m", "etl", "ingest", str(root), "--db",
                             str(db), "-q", "-j", "1", "--full"], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        fresh = [p for p in cache_root_for(db).iterdir() if (p / "stats.json").exists()
                 and (p / "stats.json").stat().st_mtime > stamp]
        if len(fresh) >= 10:
            break
        time.sleep(0.01)
    assert proc.poll() is None
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and err.strip().endswith(INTERRUPTED_MESSAGE), err
    assert db.read_bytes() == before and db.stat().st_ino == inode
    assert read_index(cache_root_for(db))["ingests"] == history
    again = run_ingest(root, db, IngestOptions())
    assert again.n_parsed == 0  # every file is in the cache, old or re-staged
    assert _n_staged(cache_root_for(db)) == again.n_loadable
