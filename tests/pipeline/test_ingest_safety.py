"""`etl ingest` where the file system or the operator is hostile: a --db in a directory that
cannot be written (one line, no traceback), parse workers that die with a SIGKILLed ingest,
a symlinked --db written through (the link stays, its target gets the new database), and
--memory-limit reaching the load's DuckDB connection."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.conftest import run_etl
from tests.waiting import wait_for


def _unwritable_dir(tmp_path: Path) -> Path:
    """A directory this process cannot create files in: a read-only one, or (for root, who
    writes anywhere else) sysfs."""
    if os.geteuid() != 0:
        directory = tmp_path / "read-only"
        directory.mkdir()
        directory.chmod(0o555)
        return directory
    if not os.access("/sys", os.F_OK):
        pytest.skip("running as root without /sys: no directory root cannot write")
    return Path("/sys")


def test_a_db_in_a_read_only_directory_is_one_clear_line(demo_tree: tuple[Path, dict],
                                                         tmp_path: Path) -> None:
    root, _ = demo_tree
    directory = _unwritable_dir(tmp_path)
    db = directory / "warehouse.duckdb"
    proc = run_etl("ingest", str(root), "--db", str(db), "--quiet", check=False)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"cannot write in {directory}" in lines[0], proc.stderr
    assert "choose a --db in a directory you can write" in lines[0]
    assert not db.exists()


def _alive(pid: int) -> bool:
    """A live process (a zombie waiting for its reaper counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parents[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, todo = set(), [pid]
    while todo:
        current = todo.pop()
        children = {child for child, parent in parents.items() if parent == current}
        todo.extend(children - found)
        found |= children
    return found


def test_parse_workers_die_with_a_killed_ingest(demo_tree: tuple[Path, dict],
                                                tmp_path: Path) -> None:
    root, _ = demo_tree
    db = tmp_path / "w.duckdb"
    proc = subprocess.Popen([sys.executable, "-m", "etl.cli", "ingest", str(root), "--db",
                             str(db), "--quiet", "--jobs", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        workers: set[int] = set()

        def parsing() -> bool:
            """Workers that have imported etl and are parsing (their cache dirs appear)."""
            nonlocal workers
            cache = db.with_name(db.name + ".cache")
            if cache.exists() and any(p.name.startswith(".tmp-") for p in cache.iterdir()):
                workers = {p for p in _descendants(proc.pid) if _alive(p)}
            return len(workers) >= 2 or proc.poll() is not None

        wait_for(parsing, "two parse workers parsing, or the ingest ended", every=0.01)
        assert proc.poll() is None and len(workers) >= 2, "the workers were not seen parsing"
        os.kill(proc.pid, signal.SIGKILL)  # the main process only, as the OOM killer does
        proc.wait()
        wait_for(lambda: not any(_alive(w) for w in workers),
                 "the parse workers died with the ingest")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _results(db: Path) -> int:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT count(*) FROM results").fetchone()[0]


def _tree(base: Path, n_runs: int) -> Path:
    from tests.wide_tree import write_wide_tree

    root = base / f"tree{n_runs}"
    write_wide_tree(root, n_runs=n_runs, n_questions=5, split="smoke20")
    return root


def test_a_symlinked_db_is_written_through(tmp_path: Path) -> None:
    one, two = _tree(tmp_path, 1), _tree(tmp_path, 2)
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    target = real_dir / "warehouse.duckdb"
    link = tmp_path / "link.duckdb"
    link.symlink_to(target)  # dangling: the first ingest creates the target
    run_etl("ingest", str(one), "--db", str(link), "--quiet")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.is_file() and not target.is_symlink() and _results(link) == 5
    run_etl("ingest", str(two), "--db", str(link), "--quiet")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert _results(target) == 10, "the target holds the new database"
    assert not list(tmp_path.glob("link.duckdb.tmp-*")) and not list(
        real_dir.glob("warehouse.duckdb.tmp-*"))
    # A link chain ends at the same file; a loop is refused in one line.
    chain = tmp_path / "chain.duckdb"
    chain.symlink_to(link)
    run_etl("ingest", str(one), "--db", str(chain), "--quiet")
    assert chain.is_symlink() and _results(target) == 5
    loop = tmp_path / "loop.duckdb"
    loop.symlink_to(loop)
    proc = run_etl("ingest", str(one), "--db", str(loop), "--quiet", check=False)
    assert proc.returncode == 4 and "Traceback" not in proc.stderr
    assert "not a regular file" in proc.stderr and loop.is_symlink()


def test_memory_limit_reaches_the_load(tmp_path: Path) -> None:
    root = _tree(tmp_path, 3)
    proc = run_etl("ingest", str(root), "--db", str(tmp_path / "tiny.duckdb"), "--quiet",
                   "--memory-limit", "1MB", check=False)
    # DuckDB ran out of the 1 MB (the message is DuckDB's: a block it could not allocate).
    assert proc.returncode == 1 and ("could not allocate" in proc.stderr
                                     or "Out of Memory" in proc.stderr), proc.stderr
    assert not (tmp_path / "tiny.duckdb").exists()
    run_etl("ingest", str(root), "--db", str(tmp_path / "ok.duckdb"), "--quiet",
            "--memory-limit", "256MB")
    assert _results(tmp_path / "ok.duckdb") == 15
    bad = run_etl("ingest", str(root), "--db", str(tmp_path / "x.duckdb"), "--memory-limit",
                  "lots", check=False)
    assert bad.returncode == 2 and "--memory-limit" in bad.stderr


def test_a_spill_directory_left_by_a_killed_ingest_is_removed(tmp_path: Path) -> None:
    """DuckDB spills past --memory-limit into <db>.tmp-<pid>.tmp; a SIGKILL leaves it. The
    next ingest removes it with the other leftovers of dead ingests (it raised
    IsADirectoryError on every ingest that followed)."""
    root = _tree(tmp_path, 2)
    db = tmp_path / "w.duckdb"
    dead = 2**22 + 12345  # above any pid this machine hands out
    spill = tmp_path / f"w.duckdb.tmp-{dead}.tmp"
    spill.mkdir()
    (spill / "duckdb_temp_block-0.block").write_bytes(b"x" * 100)
    (tmp_path / f"w.duckdb.tmp-{dead}").write_bytes(b"half a database")
    proc = run_etl("ingest", str(root), "--db", str(db), "--quiet", check=False)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert not spill.exists() and not (tmp_path / f"w.duckdb.tmp-{dead}").exists()
    assert _results(db) == 10


def test_control_characters_of_names_and_link_targets_are_escaped(tmp_path: Path) -> None:
    """A link target or a file name holding ESC or BEL would retitle the terminal (or worse)
    if printed raw: the refusal, the --force warning, the notes on skipped directories and
    `etl check`'s list of rejects show each such character as its escape."""
    root = _tree(tmp_path, 1)
    run = root / "ehr_bench/oneshot/smoke20/model_00000"
    title = "\x1b]0;pwned\x07"
    (run / "cmd.txt").symlink_to(tmp_path / f"missing{title}target")
    (root / f".hidden{title}").mkdir()
    (run / f"notes{title}.txt").symlink_to("/proc/self/environ")
    raw = ("\x1b", "\x07")
    refused = run_etl("ingest", str(root), "--db", str(tmp_path / "w.duckdb"), check=False)
    assert refused.returncode == 7
    forced = run_etl("ingest", str(root), "--db", str(tmp_path / "w.duckdb"), "--force",
                     "--quiet")
    checked = run_etl("check", str(root), "--force")
    for proc in (refused, forced, checked):
        shown = proc.stdout + proc.stderr
        assert not any(c in shown for c in raw), repr(shown)
        assert "\\x1b]0;pwned\\x07" in shown, shown
    assert "missing\\x1b]0;pwned\\x07target" in refused.stderr
    assert ".hidden\\x1b]0;pwned\\x07" in forced.stderr
    assert "notes\\x1b]0;pwned\\x07.txt" in checked.stdout


def test_run_ids_holding_control_characters_are_escaped_by_the_readers(tmp_path: Path
                                                                        ) -> None:
    """A run id is a directory of the tree: one holding ESC / BEL reaches the terminal
    escaped in `etl compare`'s summary line and in a Markdown table, as in a plain table."""
    from tests.wide_tree import write_wide_tree

    root, db = tmp_path / "tree", tmp_path / "w.duckdb"
    write_wide_tree(root, n_runs=2, n_questions=5)
    board = root / "ehr_bench/oneshot/full1800"
    (board / "model_00001").rename(board / "model_\x1b]0;pwned\x07")
    run_etl("ingest", str(root), "--db", str(db), "--quiet")
    run_a, run_b = (f"ehr_bench/oneshot/full1800/{name}"
                    for name in ("model_00000", "model_\x1b]0;pwned\x07"))
    compared = run_etl("compare", run_a, run_b, "--db", str(db))
    listed = run_etl("query", "--db", str(db), "--format", "md",
                     "SELECT run_id FROM runs ORDER BY run_id")
    for proc in (compared, listed):
        shown = proc.stdout + proc.stderr
        assert "\x1b" not in shown and "\x07" not in shown, repr(shown)
        assert "model_\\x1b]0;pwned\\x07" in shown, shown
    assert " vs ehr_bench/oneshot/full1800/model_\\x1b]0;pwned\\x07:" in compared.stdout
