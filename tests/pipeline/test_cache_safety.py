"""The parse cache beside a database (`<db>.cache/`): as private as the data it holds, and
the ingest deletes nothing in it but what it made; its index of any shape, or one that cannot
be written, never costs a traceback or a false exit status; temporary files of a failed
ingest do not stay."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from pathlib import Path

import duckdb
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from etl.pipeline.ingest import IngestOptions, run_ingest
from tests.budgets import examples
from tests.conftest import run_etl
from tests.pipeline.test_load import assert_same_warehouse
from tests.wide_tree import write_wide_tree

RUN = "ehr_bench/oneshot/full1800/model_00000"


def tree_of(root: Path, n_runs: int = 2) -> Path:
    write_wide_tree(root, n_runs=n_runs, n_questions=4)
    return root


def results_of(db: Path) -> int:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT count(*) FROM results").fetchone()[0]


def add_run(root: Path, name: str) -> None:
    """A copy of the first run under another model name: 4 more results."""
    shutil.copytree(root / RUN, root / RUN.replace("model_00000", name))


def cache_of(db: Path) -> Path:
    return db.with_name(db.name + ".cache")


# -- the exit status says the truth around the publish ----------------------------------------
def test_an_index_that_cannot_be_written_after_the_publish_is_a_warning(tmp_path: Path
                                                                         ) -> None:
    """The new database is in place when the index is written: a failure there (a disk that
    fills; here index.json is a directory) is a one-line warning and exit 0, never a
    traceback and exit 1 that scripts and --watch read as "nothing changed"."""
    root, db = tree_of(tmp_path / "tree"), tmp_path / "w.duckdb"
    run_etl("ingest", str(root), "--db", str(db), "--quiet")
    index = cache_of(db) / "index.json"
    index.unlink()
    index.mkdir()
    add_run(root, "model_new")
    proc = run_etl("ingest", str(root), "--db", str(db), "--quiet", check=False)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.strip()]
    # The unusable index found at the start, and the one that could not be written.
    assert len(warnings) == 2 and "not a parse cache index" in warnings[0], proc.stderr
    assert "is published, but the parse cache index could not be written" in warnings[1]
    assert results_of(db) == 12
    assert not [p.name for p in cache_of(db).iterdir() if p.name.startswith(".index.json.")]
    # Fixed, the next ingest trusts nothing it cannot check and builds the same warehouse.
    index.rmdir()
    add_run(root, "model_newer")
    proc = run_etl("ingest", str(root), "--db", str(db), "--quiet")
    assert results_of(db) == 16 and "built from scratch" in proc.stdout


def test_after_an_index_lost_to_a_full_disk_the_old_index_is_not_trusted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The index of the file the publish replaced must not survive it: with the tree
    changed back, it would say "nothing changed" over the newer database."""
    root, db = tree_of(tmp_path / "tree"), tmp_path / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1))
    add_run(root, "model_new")

    def disk_full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("etl.pipeline.ingest.write_index", disk_full)
    summary = run_ingest(root, db, IngestOptions(jobs=1))
    monkeypatch.undo()
    assert results_of(db) == 12
    assert [w for w in summary.warnings if "No space left on device" in w], summary.warnings
    shutil.rmtree(root / RUN.replace("model_00000", "model_new"))  # the tree as it was
    again = run_ingest(root, db, IngestOptions(jobs=1))
    assert not again.unchanged and results_of(db) == 8


def test_temporary_files_of_an_earlier_failed_ingest_of_this_process_go(tmp_path: Path
                                                                        ) -> None:
    """A failed build removes its database, WAL and spill directory; what an earlier
    ingest of the same process left (a --watch on a disk that filled) goes with the next."""
    root, db = tree_of(tmp_path / "tree"), tmp_path / "w.duckdb"
    mine = f"w.duckdb.tmp-{os.getpid()}"
    (tmp_path / f"{mine}.wal").write_bytes(b"left by a full disk")
    (tmp_path / f"{mine}.tmp").mkdir()
    (tmp_path / f"{mine}.tmp" / "duckdb_temp_block-1.block").write_bytes(b"x")
    run_ingest(root, db, IngestOptions(jobs=1))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tree", "w.duckdb", "w.duckdb.cache"]


def test_a_failed_build_leaves_no_temporary_file(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    root, db = tree_of(tmp_path / "tree"), tmp_path / "w.duckdb"

    def fails_with_a_wal(con: duckdb.DuckDBPyConnection, *args: object, **kwargs: object
                         ) -> None:
        con.execute("CREATE TABLE big AS SELECT range AS i FROM range(300000)")
        wal = list(tmp_path.glob("w.duckdb.tmp-*.wal"))
        assert wal, "DuckDB keeps a WAL until the checkpoint"
        (tmp_path / f"{wal[0].name[:-4]}.tmp").mkdir()  # as DuckDB's spill directory
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("etl.pipeline.ingest.build_database", fails_with_a_wal)
    with pytest.raises(Exception, match="No space left"):
        run_ingest(root, db, IngestOptions(jobs=1))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tree", "w.duckdb.cache"]


# -- the ingest deletes only what it made -----------------------------------------------------
def test_the_ingest_deletes_nothing_it_did_not_make(tmp_path: Path) -> None:
    """<db>.cache linked to a scratch directory that holds other things: they stay, named in
    one line; what the ingest made and no longer needs goes."""
    root, db = tree_of(tmp_path / "tree"), tmp_path / "w.duckdb"
    scratch = tmp_path / "scratch"
    (scratch / "someone_else" / "deep").mkdir(parents=True)
    (scratch / "someone_else" / "deep" / "data.bin").write_bytes(b"keep me")
    (scratch / "0123456789abcdef-notmine").mkdir()
    (scratch / ".tmp-0123456789abcdef-1").mkdir()  # named like a worker's, not made by one
    dead = 2**22 + 12345  # above any pid this machine hands out
    (scratch / f".tmp-0123456789abcdef-{dead}").mkdir()  # a worker killed before its marker
    (scratch / f".tmp-fedcba9876543210-{dead}").mkdir()  # ... not empty: not a worker's
    (scratch / f".tmp-fedcba9876543210-{dead}" / "data.bin").write_bytes(b"keep me")
    (scratch / "notes.txt").write_text("keep me")
    cache_of(db).symlink_to(scratch)
    run_etl("ingest", str(root), "--db", str(db), "--quiet")
    assert (scratch / "someone_else" / "deep" / "data.bin").read_bytes() == b"keep me"
    ours_before = {p.name for p in scratch.iterdir() if (p / ".etl-cache-entry").is_file()}
    assert len(ours_before) >= 2
    (root / RUN / "results.jsonl").write_bytes(
        (root / RUN / "results.jsonl").read_bytes().splitlines(keepends=True)[0])
    proc = run_etl("ingest", str(root), "--db", str(db), "--quiet")
    assert (scratch / "someone_else" / "deep" / "data.bin").read_bytes() == b"keep me"
    assert (scratch / "notes.txt").read_text() == "keep me"
    assert (scratch / "0123456789abcdef-notmine").is_dir()
    assert (scratch / ".tmp-0123456789abcdef-1").is_dir()
    assert (scratch / f".tmp-fedcba9876543210-{dead}" / "data.bin").read_bytes() == b"keep me"
    assert not (scratch / f".tmp-0123456789abcdef-{dead}").exists()
    notes = [line for line in proc.stderr.splitlines() if "did not make" in line]
    assert len(notes) == 1 and "5 entries" in notes[0], proc.stderr
    ours_after = {p.name for p in scratch.iterdir() if (p / ".etl-cache-entry").is_file()}
    assert ours_before - ours_after, "the staged copy of the rewritten file is pruned"
    assert cache_of(db).is_symlink()


def test_entries_of_a_cache_made_before_the_markers_are_pruned(tmp_path: Path) -> None:
    """A cache written before entries carried a marker: the entries its index names are
    this tool's, and go once no longer used."""
    root, db = tree_of(tmp_path / "tree"), tmp_path / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1))
    for marker in cache_of(db).glob("*/.etl-cache-entry"):
        marker.unlink()
    before = {p.name for p in cache_of(db).iterdir() if p.is_dir()}
    (root / RUN / "results.jsonl").write_bytes(
        (root / RUN / "results.jsonl").read_bytes().splitlines(keepends=True)[0])
    summary = run_ingest(root, db, IngestOptions(jobs=1))
    after = {p.name for p in cache_of(db).iterdir() if p.is_dir()}
    assert len(before - after) == 1 and not summary.warnings


def test_an_inspect_log_s_entry_is_this_tool_s_too(inspect_tree: tuple[Path, dict[str, Path]],
                                                  tmp_path: Path) -> None:
    """An Inspect AI log is staged into a directory of its own making: it carries the marker,
    so once the index that named it is lost (a disk that filled as it was written) the entry
    of the log's earlier state is still pruned, not kept for good with a note on every
    ingest."""
    from inspect_ai.log import read_eval_log, write_eval_log

    full = read_eval_log(str(inspect_tree[1]["agentic"]))
    started = full.model_copy(deep=True)
    started.status, started.results, started.samples = "started", None, full.samples[:8]
    root, db = tmp_path / "logs", tmp_path / "w.duckdb"
    root.mkdir()
    write_eval_log(started, str(root / "running.eval"))
    run_ingest(root, db, IngestOptions(jobs=1))
    before = {p.name for p in cache_of(db).iterdir()} - {"index.json"}
    assert len(before) == 1, before
    (cache_of(db) / "index.json").unlink()
    write_eval_log(full, str(root / "running.eval"))  # the evaluation finished
    summary = run_ingest(root, db, IngestOptions(jobs=1))
    assert not [w for w in summary.warnings if "did not make" in w], summary.warnings
    after = {p.name for p in cache_of(db).iterdir()} - {"index.json"}
    assert len(after) == 1 and not before & after, (before, after)
    assert results_of(db) == 18


def test_the_cache_is_private(tmp_path: Path) -> None:
    """The cache holds the unredacted rows: its directories are 0700, its files 0600,
    however permissive the umask, with one worker and with several."""
    root, db = tree_of(tmp_path / "tree", n_runs=3), tmp_path / "w.duckdb"
    previous = os.umask(0o022)
    try:
        run_ingest(root, db, IngestOptions(jobs=2, redact=True, redact_key="k"))
        add_run(root, "model_new")
        run_ingest(root, db, IngestOptions(jobs=1, redact=True, redact_key="k"))
    finally:
        os.umask(previous)
    modes = {str(p.relative_to(tmp_path)): stat.S_IMODE(p.lstat().st_mode)
             for p in [cache_of(db), *cache_of(db).rglob("*")]}
    assert len(modes) > 10
    assert {p: m for p, m in modes.items() if m & 0o077} == {}
    # The database itself is made as the umask says: it is the file to share.
    assert stat.S_IMODE(db.stat().st_mode) == 0o644


def test_an_old_cache_is_made_private(tmp_path: Path) -> None:
    root, db = tree_of(tmp_path / "tree"), tmp_path / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1))
    cache_of(db).chmod(0o755)  # as an earlier version left it
    run_ingest(root, db, IngestOptions(jobs=1))
    assert stat.S_IMODE(cache_of(db).stat().st_mode) == 0o700


# -- the cache index: any shape ---------------------------------------------------------------
def test_the_audit_s_index_of_a_wrong_shape_is_rebuilt_in_one_line(tmp_path: Path) -> None:
    root, db = tree_of(tmp_path / "tree"), tmp_path / "w.duckdb"
    run_etl("ingest", str(root), "--db", str(db), "--quiet")
    (cache_of(db) / "index.json").write_text('{"files": [], "loaded": 5}')
    proc = run_etl("ingest", str(root), "--db", str(db), "--quiet", check=False)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "not a parse cache index" in lines[0], proc.stderr
    assert results_of(db) == 8


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=8),
                    lambda children: st.lists(children, max_size=3)
                    | st.dictionaries(st.text(max_size=6), children, max_size=3),
                    max_leaves=8)


def _paths(value: object, prefix: tuple = ()) -> list[tuple]:
    """Every position in a JSON value (its keys and list positions from the top)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            found += _paths(child, (*prefix, i))
    return found


def _replaced(value: object, path: tuple, new: object) -> object:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replaced(value[head], rest, new)}
    copy = list(value)  # type: ignore[arg-type]
    copy[head] = _replaced(copy[head], rest, new)
    return copy


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict, Path]:
    """(tree, database, its index, a --full build of the tree to compare with)."""
    base = tmp_path_factory.mktemp("indexed")
    root, db, full = tree_of(base / "tree"), base / "w.duckdb", base / "full.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1, redact=True, redact_key="k"))
    run_ingest(root, full, IngestOptions(jobs=1, redact=True, redact_key="k", full=True))
    index = orjson.loads((cache_of(db) / "index.json").read_bytes())
    return root, db, index, full


@given(data=st.data())
@settings(max_examples=examples(10), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_an_index_of_any_shape_costs_no_traceback(indexed: tuple[Path, Path, dict, Path],
                                                  tmp_path_factory: pytest.TempPathFactory,
                                                  data: st.DataObject) -> None:
    """Any value anywhere in the index (or a whole document that is no index, or bytes
    that are no JSON): the ingest ends as an ingest of the tree ends, with at most one line
    about the index, and its warehouse is the one a --full build gives."""
    root, db, index, full = indexed
    work = tmp_path_factory.mktemp("shape")
    shutil.copy(db, work / "w.duckdb")
    shutil.copytree(cache_of(db), cache_of(work / "w.duckdb"), symlinks=True)
    how = data.draw(st.sampled_from(["value", "value", "value", "document", "bytes"]))
    if how == "bytes":
        raw = data.draw(st.binary(max_size=40))
    elif how == "document":  # the stdlib writes integers of any size, as another tool may
        raw = json.dumps(data.draw(JSON)).encode()
    else:
        where = data.draw(st.sampled_from(_paths(index)))
        raw = json.dumps(_replaced(index, where, data.draw(JSON))).encode()
    (cache_of(work / "w.duckdb") / "index.json").write_bytes(raw)
    summary = run_ingest(root, work / "w.duckdb",
                         IngestOptions(jobs=1, redact=True, redact_key="k"))
    assert len([w for w in summary.warnings if "index" in w]) <= 1, summary.warnings
    assert_same_warehouse(work / "w.duckdb", full)


# -- the fingerprint of the redaction key -----------------------------------------------------
def test_the_index_keeps_a_salted_fingerprint_of_the_key_not_its_hash(tmp_path: Path
                                                                       ) -> None:
    root = tree_of(tmp_path / "tree")
    key = "short"
    one, two = tmp_path / "one.duckdb", tmp_path / "two.duckdb"
    run_ingest(root, one, IngestOptions(jobs=1, redact=True, redact_key=key))
    run_ingest(root, two, IngestOptions(jobs=1, redact=True, redact_key=key))
    texts = [(cache_of(db) / "index.json").read_text() for db in (one, two)]
    for text in texts:
        for digest in (hashlib.sha256(key.encode()).hexdigest(),
                       hashlib.sha256(f"{key}\n".encode()).hexdigest()):
            assert digest not in text
    prints = [orjson.loads(t)["last"]["redact_key"] for t in texts]
    assert prints[0]["salt"] != prints[1]["salt"] and prints[0] != prints[1]
    # Same key: the fingerprint holds (an update, not a build from scratch); another key
    # does not.
    add_run(root, "model_new")
    same = run_ingest(root, one, IngestOptions(jobs=1, redact=True, redact_key=key))
    assert same.full_reason is None
    other = run_ingest(root, one, IngestOptions(jobs=1, redact=True, redact_key="other"))
    assert other.full_reason == "the redaction key changed"


# -- a damaged file of the cache --------------------------------------------------------------
def test_a_truncated_cache_file_fails_one_ingest_and_is_parsed_again(tmp_path: Path) -> None:
    root, db = tree_of(tmp_path / "tree"), tmp_path / "w.duckdb"
    run_etl("ingest", str(root), "--db", str(db), "--quiet")
    parquet = next(cache_of(db).glob("*/results.parquet"))
    parquet.write_bytes(parquet.read_bytes()[:100])
    db.unlink()  # a build from scratch reads every staged file
    proc = run_etl("ingest", str(root), "--db", str(db), "--quiet", check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "a file of the parse cache is damaged" in proc.stderr
    assert "next ingest parses its file again" in proc.stderr
    proc = run_etl("ingest", str(root), "--db", str(db), "--quiet")
    assert results_of(db) == 8


# -- a redacted warehouse built over a plain one ----------------------------------------------
def test_a_redacted_build_over_a_plain_one_keeps_none_of_its_history(tmp_path: Path) -> None:
    root, db = tree_of(tmp_path / "tree"), tmp_path / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1))
    add_run(root, "model_new")
    run_ingest(root, db, IngestOptions(jobs=1))
    run_ingest(root, db, IngestOptions(jobs=1, redact=True, redact_key="k"))
    add_run(root, "model_newer")
    run_ingest(root, db, IngestOptions(jobs=1, redact=True, redact_key="k"))
    with duckdb.connect(str(db), read_only=True) as con:
        options = [o for (o,) in con.execute("SELECT options FROM ingests").fetchall()]
        boards = con.execute("SELECT count(DISTINCT h.ingest_id), count(*) FILTER "
                             "(i.ingest_id IS NULL) FROM leaderboard_history AS h LEFT JOIN "
                             "ingests AS i USING (ingest_id)").fetchone()
    assert len(options) == 2 and all(orjson.loads(o)["redact"] for o in options)
    assert boards == (2, 0)
