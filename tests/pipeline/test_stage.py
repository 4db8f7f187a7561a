"""The stage step (etl/pipeline/stage.py, segments.py): what is parsed again.

Append-only growth (etl/pipeline/segments.py): a results file that only grew is parsed
from its last complete line on, into an extra cache segment, and the database equals a full rebuild
(table by table, view by view); its unterminated last line is "in progress" (neither loaded
nor rejected) until it is complete or the file has been quiet for the quiet period; a file
that was truncated or rewritten is parsed again from the start."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from etl.pipeline.cache import cache_root_for, read_index
from etl.pipeline.discover import discover
from etl.pipeline.emitter import result_from_json
from etl.pipeline.errors import Interrupted
from etl.pipeline.ingest import IngestOptions, IngestSummary, run_ingest
from etl.pipeline.plan import FilePlan
from etl.pipeline.segments import stage_segments
from etl.pipeline.stage import parse_view
from tests.budgets import examples
from tests.small_tree import (
    AGENTIC,
    ONESHOT,
    assert_same_warehouse,
    backdate,
    parsed_paths,
    record,
)

LIVE = f"{ONESHOT}/results.jsonl"


# A writer is "still on" a file modified in the last hour: far beyond the time a test takes
# between writing a half line and ingesting it, however busy the machine (backdate() makes a
# file a day old).
def ingest(root: Path, db: Path, quiet: float = 3600.0, **options: Any) -> IngestSummary:
    return run_ingest(root, db, IngestOptions(jobs=1,
                                              in_progress_seconds=quiet, **options))


def line(rec: dict[str, Any]) -> bytes:
    return orjson.dumps(rec) + b"\n"


def query(db: Path, sql: str, params: list[Any] | None = None) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def file_row(db: Path, path: str) -> dict[str, Any]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rel = con.execute("SELECT * FROM files WHERE path = ?", [path])
        cols = [d[0] for d in rel.description]
        return dict(zip(cols, rel.fetchone(), strict=True))
    finally:
        con.close()


def chain_of(db: Path, path: str) -> list[dict[str, Any]]:
    """The cache segments the index holds for a file (etl/pipeline/emitter.py StageResult.parts)."""
    cache = cache_root_for(db)
    entry = next(e for e in read_index(cache)["files"].values() if e["path"] == path)
    return result_from_json(orjson.loads((cache / entry["cache_dir"] / "stats.json")
                                         .read_bytes())).parts()


def test_grown_file_is_parsed_from_its_last_line_and_equals_a_full_rebuild(
        tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "warehouse.duckdb"
    ingest(tree, db)
    live = tree / LIVE
    before = live.stat().st_size
    # A newer attempt of a key already in the file (the last record of a key wins) and a
    # new question.
    with live.open("ab") as fh:
        fh.write(line(record("q1", run_index=1, answer=["heparin"])) + line(record("q9")))
    summary = ingest(tree, db)
    assert (summary.n_parsed, summary.n_appended) == (1, 1)
    assert parsed_paths(db) == {LIVE}
    assert summary.bytes_parsed == live.stat().st_size - before  # only the new lines
    parts = chain_of(db, LIVE)
    assert len(parts) == 2
    new_rows = pq.read_table(cache_root_for(db) / parts[1]["cache_dir"] / "results.parquet",
                             columns=["qid", "line_no", "rec_no"]).to_pylist()
    assert new_rows == [{"qid": "q1", "line_no": 9, "rec_no": 9},
                        {"qid": "q9", "line_no": 10, "rec_no": 10}]
    assert query(db, "SELECT prediction FROM results WHERE run_id = ? AND qid = 'q1' AND "
                     "run_index = 1", [ONESHOT]) == [('["heparin"]',)]
    row = file_row(db, LIVE)
    assert (row["n_lines"], row["n_rows"], row["n_duplicates"], row["n_in_progress"]) == (
        10, 10, 1, 0)
    assert row["sha256"] == hashlib.sha256(live.read_bytes()).hexdigest()
    full = tmp_path / "full.duckdb"
    ingest(tree, full, full=True)
    assert_same_warehouse(db, full)


def test_in_progress_line_is_held_back_then_loaded_or_judged(tree: Path,
                                                             tmp_path: Path) -> None:
    db = tmp_path / "warehouse.duckdb"
    live = tree / LIVE
    half = line(record("q7"))[:40]
    with live.open("ab") as fh:
        fh.write(half)
    first = ingest(tree, db)
    assert first.n_in_progress == 1 and "1 line in progress" in "\n".join(first.lines())
    assert file_row(db, LIVE)["n_in_progress"] == 1
    assert query(db, "SELECT count(*) FROM rejects WHERE path = ?", [LIVE]) == [(0,)]
    assert query(db, "SELECT count(*) FROM results WHERE run_id = ?", [ONESHOT]) == [(8,)]
    # Nothing changed and the writer is not quiet yet: the cache holds it, still in progress.
    again = ingest(tree, db)
    assert again.unchanged and again.n_in_progress == 1

    # The writer completes the line: loaded, never rejected, only the new bytes parsed.
    with live.open("ab") as fh:
        fh.write(line(record("q7"))[40:])
    done = ingest(tree, db)
    assert (done.n_parsed, done.n_appended, done.n_in_progress) == (1, 1, 0)
    assert query(db, "SELECT count(*) FROM rejects WHERE path = ?", [LIVE]) == [(0,)]
    assert query(db, "SELECT line_no, rec_no FROM results WHERE run_id = ? AND qid = 'q7'",
                 [ONESHOT]) == [(9, 9)]
    full = tmp_path / "full.duckdb"
    ingest(tree, full, full=True)
    assert_same_warehouse(db, full)

    # Another half line, and then the writer stops (killed): once the file is quiet, the line
    # is damage as DESIGN says (a truncated line is a reject), judged in a segment of its own.
    with live.open("ab") as fh:
        fh.write(half)
    assert ingest(tree, db).n_in_progress == 1
    backdate(live)
    judged = ingest(tree, db)
    assert (judged.n_parsed, judged.n_appended, judged.n_in_progress) == (1, 1, 0)
    assert query(db, "SELECT line_no, severity, error LIKE 'truncated or invalid JSON%' "
                     "FROM rejects WHERE path = ?", [LIVE]) == [(10, "error", True)]
    assert file_row(db, LIVE)["n_lines"] == 10
    assert chain_of(db, LIVE)[-1].get("tail")
    ingest(tree, full, full=True)
    assert_same_warehouse(db, full)

    # The writer resumes after all (a resumed run appends to the damaged line): the judged
    # tail is parsed again with the new bytes, and the result is again a full rebuild's.
    with live.open("ab") as fh:
        fh.write(b"\n" + line(record("q8")))
    resumed = ingest(tree, db)
    assert (resumed.n_parsed, resumed.n_appended) == (1, 1)
    assert query(db, "SELECT line_no FROM rejects WHERE path = ?", [LIVE]) == [(10,)]
    assert query(db, "SELECT line_no, rec_no FROM results WHERE run_id = ? AND qid = 'q8'",
                 [ONESHOT]) == [(11, 10)]
    assert not any(part.get("tail") for part in chain_of(db, LIVE))
    ingest(tree, full, full=True)
    assert_same_warehouse(db, full)


@pytest.mark.parametrize("change", ["truncated", "rewritten_then_grown", "same_size"])
def test_truncated_or_rewritten_file_is_parsed_from_the_start(tree: Path, tmp_path: Path,
                                                              change: str) -> None:
    db = tmp_path / "warehouse.duckdb"
    ingest(tree, db)
    live = tree / LIVE
    data = live.read_bytes()
    if change == "truncated":
        new = data[: data.index(b"\n") + 1]
    elif change == "rewritten_then_grown":  # the first line changed, and the file grew
        new = data.replace(b'"question q0"', b'"question Q0"', 1) + line(record("q9"))
    else:
        new = data.replace(b'"question q0"', b'"question Q0"', 1)
    live.write_bytes(new)
    st_ = live.stat()
    os.utime(live, ns=(st_.st_atime_ns, st_.st_mtime_ns + 1_000_000_000))
    summary = ingest(tree, db)
    assert (summary.n_parsed, summary.n_appended) == (1, 0)
    assert len(chain_of(db, LIVE)) == 1
    full = tmp_path / "full.duckdb"
    ingest(tree, full, full=True)
    assert_same_warehouse(db, full)


def test_secondary_copy_grows_with_its_skip_keys(tree: Path, tmp_path: Path) -> None:
    """A region shard (a secondary copy, staged with the keys the run's merged file holds
    skipped) and the preferred file both grow: the shard's new segment is staged with the
    current keys and the database still equals a full rebuild."""
    db = tmp_path / "warehouse.duckdb"
    ingest(tree, db)
    shard = tree / AGENTIC / "us-east-1/results.jsonl"
    top = tree / AGENTIC / "results.jsonl"
    with shard.open("ab") as fh:
        fh.write(line(record("q3", answer=["shard"])) + line(record("q20")))
    with top.open("ab") as fh:  # the top file ends in a half line: it is completed here
        fh.write(b'x"}\n' + line(record("q20", answer=["top"])))
    summary = ingest(tree, db)
    assert summary.n_appended == 2
    assert query(db, "SELECT prediction FROM results WHERE run_id = ? AND qid = 'q20'",
                 [AGENTIC]) == [('["top"]',)]
    full = tmp_path / "full.duckdb"
    ingest(tree, full, full=True)
    assert_same_warehouse(db, full)


def test_interrupted_ingest_keeps_the_new_segment(tree: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C after the new lines were staged: the next ingest reuses that segment (it
    parses nothing) and the result equals a full rebuild."""
    db = tmp_path / "warehouse.duckdb"
    ingest(tree, db)
    with (tree / LIVE).open("ab") as fh:
        fh.write(line(record("q9")))

    def interrupt(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("etl.pipeline.ingest.build_database", interrupt)
    with pytest.raises(Interrupted):
        ingest(tree, db)
    monkeypatch.undo()
    summary = ingest(tree, db)
    assert summary.n_parsed == 0 and not summary.unchanged
    assert len(chain_of(db, LIVE)) == 2
    full = tmp_path / "full.duckdb"
    ingest(tree, full, full=True)
    assert_same_warehouse(db, full)


def _writer(path: Path, records: list[bytes], pause: float, stop: threading.Event) -> None:
    """Append records, each in two writes with a pause between (so that readers see half
    lines), as a slow writer flushing a big line would."""
    with path.open("ab", buffering=0) as fh:
        for data in records:
            cut = len(data) // 2
            fh.write(data[:cut])
            time.sleep(pause)
            fh.write(data[cut:])
            time.sleep(pause / 2)
    stop.set()


def test_writer_appending_during_and_between_ingests(tree: Path, tmp_path: Path) -> None:
    """A writer thread appends (half lines included) while ingests run: at every ingest each
    loaded record is a complete line of the file, none is rejected, a half line is in
    progress; at the end every line is loaded once and the database is a full rebuild's."""
    db = tmp_path / "warehouse.duckdb"
    live = tree / LIVE
    ingest(tree, db)
    new = [line(record(f"w{i}", run_index=1, answer=[f"a{i}"])) for i in range(12)]
    new += [line(record("w3", run_index=1, answer=["again"]))]  # a newer attempt: it wins
    stop = threading.Event()
    writer = threading.Thread(target=_writer, args=(live, new, 0.3, stop))
    writer.start()
    try:
        while not stop.is_set():
            ingest(tree, db)
            loaded = {q for (q,) in query(db, "SELECT qid FROM results WHERE run_id = ? "
                                              "AND qid LIKE 'w%'", [ONESHOT])}
            complete = {orjson.loads(raw)["qid"]
                        for raw in live.read_bytes().split(b"\n")[:-1]}  # before the tail
            assert loaded <= complete
            assert query(db, "SELECT count(*) FROM rejects WHERE path = ?", [LIVE]) == [(0,)]
    finally:
        writer.join()
    summary = ingest(tree, db)
    assert summary.n_in_progress == 0
    assert query(db, "SELECT qid, prediction FROM results WHERE run_id = ? AND qid LIKE 'w%' "
                     "ORDER BY qid", [ONESHOT]) == sorted(
        [(f"w{i}", f'["a{i}"]') for i in range(12) if i != 3] + [("w3", '["again"]')])
    assert file_row(db, LIVE)["n_rows"] == 8 + len(new)
    full = tmp_path / "full.duckdb"
    ingest(tree, full, full=True)
    assert_same_warehouse(db, full)


# --- any cut: staging level (no database build per example, so many examples are cheap) ---

def _lines_for_cut() -> list[bytes]:
    damaged = b'{"qid": "bad", "run_index": 1, "messages": [\n'
    two = line(record("t1"))[:-1] + line(record("t2"))  # two objects on one line: repaired
    recs = [line(record(f"c{i}", answer=[f"x{i}"])) for i in range(4)]
    return [recs[0], b"\n", damaged, two, recs[1], line(record("c0", answer=["later"])),
            recs[2], recs[3]]


CUT_CONTENT = b"".join(_lines_for_cut())


def _staged_rows(cache: Path, result: Any) -> dict[str, list]:
    out = {}
    for table in sorted(result.tables):
        rows = []
        for path in result.parquet_files(cache, table):
            rows += pq.read_table(path).drop_columns(
                [c for c in ("ingest_id",) if c in pq.read_schema(path).names]).to_pylist()
        out[table] = sorted(rows, key=repr)
    return out


def _stats(result: Any) -> tuple:
    return (result.sha256, result.n_lines, result.n_rows, result.n_rejected,
            result.n_repaired, result.n_in_progress, result.tables)


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(0, len(CUT_CONTENT)), min_size=1, max_size=3),
       quiet=st.lists(st.booleans(), min_size=3, max_size=3))
def test_any_cut_staged_in_segments_equals_one_parse(tmp_path_factory: pytest.TempPathFactory,
                                                     cuts: list[int], quiet: list[bool]
                                                     ) -> None:
    """The file is written up to each cut (any byte offset, sorted) and staged after each,
    continuing the chain, with its unterminated tail in progress or judged; the rows of the
    final chain equal those of one parse of the whole file."""
    base = tmp_path_factory.mktemp("cut")
    root = base / "tree"
    path = root / ONESHOT / "results.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")
    cache = base / "cache"
    cache.mkdir()
    chain = None
    for i, cut in enumerate([*sorted(cuts), len(CUT_CONTENT)]):
        with path.open("ab") as fh:
            fh.write(CUT_CONTENT[path.stat().st_size:cut])
        info = next(f for f in discover(root).files if f.path.endswith("results.jsonl"))
        plan = FilePlan(info, quiet_seconds=3600.0 if i < 3 and not quiet[i] else 0.0)
        if chain is not None:
            plan.append_to = orjson.loads((cache / chain.cache_dir / "stats.json").read_bytes())
        chain = stage_segments(plan, parse_view(plan, cache), cache, "p", "ingest")
    one_cache = base / "one"
    one_cache.mkdir()
    plan = FilePlan(info, quiet_seconds=0.0)
    whole = stage_segments(plan, parse_view(plan, one_cache), one_cache, "p", "ingest")
    assert _stats(chain) == _stats(whole)
    assert _staged_rows(cache, chain) == _staged_rows(one_cache, whole)
    assert whole.n_rejected == 1 and whole.n_repaired == 1  # the planted damage is seen


def test_a_long_chain_is_parsed_again_in_one_piece(tree: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("etl.pipeline.cache.MAX_SEGMENTS", 2)
    db = tmp_path / "warehouse.duckdb"
    ingest(tree, db)
    appended = []
    for i in range(2):
        with (tree / LIVE).open("ab") as fh:
            fh.write(line(record(f"g{i}")))
        appended.append(ingest(tree, db).n_appended)
    assert appended == [1, 0]  # the second append would make a third segment
    assert len(chain_of(db, LIVE)) == 1
    full = tmp_path / "full.duckdb"
    ingest(tree, full, full=True)
    assert_same_warehouse(db, full)
