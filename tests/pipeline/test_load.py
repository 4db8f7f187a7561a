"""The load stage (etl/pipeline/load.py plan_load): what an ingest loads anew.

Incremental re-ingest (DESIGN.md promise 5): an unchanged file is not parsed again (size,
mtime and a content hash decide), a changed or new file is, a deleted file's rows
disappear, and the result equals a full rebuild, table by table and view by view.

Columns that legitimately differ between an incremental and a full build, and are left out
of the comparison:
- `ingests`: the incremental database carries the history of every earlier ingest (ids,
  times, n_parsed_files); only the counts of the LAST row are compared.
- `files.ingest_id` and `rejects.ingest_id`: the ingest that last PARSED the file, which is
  an earlier ingest for a cached file by design.
- `leaderboard_history` carries the boards of every earlier ingest too: only the LAST
  ingest's rows are compared, without its ids; `leaderboard_changes` (the last two ingests
  compared) is left out.
Every other column of every table and view must be equal. Floating-point numbers are compared
to 12 significant digits (and |x| < 1e-12 counts as 0): a view's sum over DOUBLEs may add the
same rows in another order (DuckDB aggregates in parallel), which changes the last bit, and
turns an abs_diff of 0 into 1e-16, not the number."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import orjson
import pytest

from etl.pipeline.ingest import IngestOptions, run_ingest
from tests.small_tree import (
    AGENTIC,
    ARCHIVE,
    MM_LINK,
    MM_RAW,
    ONESHOT,
    assert_same_warehouse,
    build_tree,
    ingest,
    parsed_paths,
    record,
    snapshot,
    write_jsonl,
)


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    build_tree(root)
    return root


def test_unchanged_tree_parses_nothing_and_keeps_the_file(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "warehouse.duckdb"
    first = ingest(tree, db)
    assert first.n_parsed == first.n_loadable > 0
    before = db.stat()
    again = ingest(tree, db)
    assert again.unchanged and again.n_parsed == 0
    after = db.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_touched_file_is_not_parsed_again(tree: Path, tmp_path: Path) -> None:
    """Only mtime changed: the content hash says it is the same file."""
    db = tmp_path / "warehouse.duckdb"
    ingest(tree, db)
    path = tree / AGENTIC / "results.jsonl"
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    summary = ingest(tree, db)
    assert not summary.unchanged  # files.mtime_ns changed, so the database is updated ...
    assert summary.n_parsed == 0 and parsed_paths(db) == set()  # ... from the cache only
    assert summary.full_reason is None and summary.n_files_replaced == 0  # no row replaced
    full = tmp_path / "full.duckdb"
    ingest(tree, full)
    assert_same_warehouse(db, full)


def test_changed_new_and_deleted_files(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "warehouse.duckdb"
    ingest(tree, db)
    # Same size, new content, new mtime: the hash decides it changed.
    oneshot = tree / ONESHOT / "results.jsonl"
    old = oneshot.read_bytes()
    new = old.replace(b'"question q0"', b'"question Q0"', 1)
    assert new != old and len(new) == len(old)
    oneshot.write_bytes(new)
    st = oneshot.stat()
    os.utime(oneshot, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    # Grown: a resumed writer appended a newer attempt of q2 and a new question.
    agentic_top = tree / AGENTIC / "results.jsonl"
    with agentic_top.open("ab") as fh:
        fh.write(b"\n" + orjson.dumps(record("q2", answer=["heparin"])) + b"\n"
                 + orjson.dumps(record("q7")) + b"\n")
    # New file; deleted file (and the symlinked copy of the steal file).
    write_jsonl(tree / AGENTIC / "eu-west-1/results.jsonl", [record("q8")])
    (tree / MM_RAW / "us-west-2/results_steal_01.jsonl").unlink()
    (tree / ARCHIVE / "results.jsonl").unlink()

    summary = ingest(tree, db)
    changed = {f"{ONESHOT}/results.jsonl", f"{AGENTIC}/results.jsonl",
               f"{AGENTIC}/eu-west-1/results.jsonl"}
    assert parsed_paths(db) == changed
    assert summary.n_parsed == len(changed)
    # Updated from a copy of the published file: the rows of the three parsed files and of
    # the two deleted ones are replaced; the runs of those files are recomputed.
    assert summary.full_reason is None
    assert summary.n_files_replaced == len(changed) + 2
    assert summary.n_runs_reranked == 4

    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT question FROM results WHERE run_id = ? AND qid = 'q0' "
                           "ORDER BY run_index", [ONESHOT]).fetchall() == [
            ("question Q0",), ("question q0",)]
        assert con.execute("SELECT prediction FROM results WHERE run_id = ? AND qid = 'q2'",
                           [AGENTIC]).fetchall() == [('["heparin"]',)]
        assert con.execute("SELECT count(*) FROM results WHERE run_id = ? AND qid IN "
                           "('q7', 'q8')", [AGENTIC]).fetchone() == (2,)
        assert con.execute("SELECT count(*) FROM results WHERE run_id = ?",
                           [ARCHIVE]).fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM files WHERE path LIKE ?",
                           [f"{ARCHIVE}/%"]).fetchone() == (0,)
        # The steal copy still holds m1; it is the only copy of that version now.
        assert con.execute("SELECT f.kind FROM results r JOIN files f USING (file_id) "
                           "WHERE r.run_id = ? AND r.qid = 'm1'",
                           [MM_LINK]).fetchall() == [("results_shard",)]
    finally:
        con.close()

    full = tmp_path / "full.duckdb"
    ingest(tree, full)  # a database with no cache beside it: every file parsed
    assert_same_warehouse(db, full)


def test_full_flag_parses_everything_and_gives_the_same_tables(tree: Path,
                                                                tmp_path: Path) -> None:
    db = tmp_path / "warehouse.duckdb"
    first = ingest(tree, db)
    before = snapshot(db)
    rebuilt = ingest(tree, db, full=True)
    assert not rebuilt.unchanged
    assert rebuilt.n_parsed == first.n_loadable
    assert parsed_paths(db) == _loaded_paths(db)
    assert snapshot(db) == before


def test_parallel_staging_gives_the_same_tables(tree: Path, tmp_path: Path) -> None:
    serial, parallel = tmp_path / "serial.duckdb", tmp_path / "parallel.duckdb"
    ingest(tree, serial)
    run_ingest(tree, parallel, IngestOptions(jobs=2))
    assert_same_warehouse(parallel, serial)


def test_demo_tree_incremental_equals_full(demo_tree_if_available: Path,
                                           tmp_path: Path) -> None:
    """The synthetic demo tree (every file kind and planted damage): change one results
    file, re-ingest incrementally, compare with a full rebuild."""
    root = tmp_path / "tree"
    shutil.copytree(demo_tree_if_available, root, symlinks=True)
    # the targets of its symlinks (agent_ehr_bench's subset600) sit beside the tree
    external = demo_tree_if_available.parent / "tree.external"
    if external.exists():
        shutil.copytree(external, tmp_path / "tree.external", symlinks=True)
    db = tmp_path / "warehouse.duckdb"
    ingest(root, db)
    target = sorted(p for p in root.rglob("results.jsonl") if not p.is_symlink()
                    and "_archive" not in p.parts)[0]
    lines = target.read_bytes().splitlines(keepends=True)
    target.write_bytes(b"".join(lines[: max(1, len(lines) // 2)]))
    summary = ingest(root, db)
    assert summary.n_parsed == 1 and summary.full_reason is None
    full = tmp_path / "full.duckdb"
    ingest(root, full)
    assert_same_warehouse(db, full)


@pytest.fixture()
def demo_tree_if_available(request: pytest.FixtureRequest) -> Path:
    root, _ = request.getfixturevalue("demo_tree")
    return root


def _loaded_paths(db: Path) -> set[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {r[0] for r in con.execute("SELECT path FROM files WHERE loaded").fetchall()}
    finally:
        con.close()


def test_a_file_mostly_free_space_is_built_anew(tree: Path, tmp_path: Path) -> None:
    """Updates leave freed blocks in the file; the index records how much of the published
    file is free, and past half the next ingest builds a compact file instead of updating."""
    from etl.pipeline.cache import cache_root_for, read_index, write_index

    db = tmp_path / "warehouse.duckdb"
    ingest(tree, db)
    with (tree / AGENTIC / "results.jsonl").open("ab") as fh:
        fh.write(b"\n" + orjson.dumps(record("q7")) + b"\n")
    updated = ingest(tree, db)
    assert updated.full_reason is None
    index = read_index(cache_root_for(db))
    con = duckdb.connect(str(db), read_only=True)
    try:
        total, free = con.execute("SELECT total_blocks, free_blocks FROM "
                                  "pragma_database_size()").fetchall()[0]
    finally:
        con.close()
    # (measured before the file is closed, which may free a block or two more)
    assert index["loaded"]["free_fraction"] == pytest.approx(free / total, abs=0.05)
    # As if many updates had freed most of the file:
    index["loaded"]["free_fraction"] = 0.6
    write_index(cache_root_for(db), index)
    with (tree / AGENTIC / "results.jsonl").open("ab") as fh:
        fh.write(orjson.dumps(record("q8")) + b"\n")
    compacted = ingest(tree, db)
    assert compacted.full_reason is not None and compacted.full_reason.startswith("compacting")
    assert compacted.n_parsed == 1  # built anew from the parse cache, not parsed anew
    assert read_index(cache_root_for(db))["loaded"]["free_fraction"] < 0.5
    full = tmp_path / "full.duckdb"
    ingest(tree, full)
    assert_same_warehouse(db, full)
