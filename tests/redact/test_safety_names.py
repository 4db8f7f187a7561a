"""Names from the tree never reach SQL text (DESIGN.md promise 6).

A hand-written tree whose benchmark, model, archive, region directory names, qids, tasks and
run.log / cmd.txt contents are built to break SQL that pastes them: quotes, semicolons, `--`
comments, `$key` / `?` parameter markers, `{table}` format fields, backslashes, unicode
(combining marks, right-to-left text, emoji, U+2028) and a 200-character name. The ingest must
load every one of them verbatim, the schema must still be whole afterwards, and the views
must still work."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import orjson
import pytest

from etl.pipeline.ingest import IngestOptions, run_ingest

LONG = "x" * 180 + "_é_; DROP TABLE runs; --"  # 200+ bytes in UTF-8, under NAME_MAX (255)
HOSTILE_MODELS = [
    "m'; DROP TABLE results; --",
    'quote"double\\back',
    "semi;colon $key ? {table} %s",
    "unicode_ß_é_\u0301_\u05d0\u05d1_🧪",
    LONG,
]
HOSTILE_BENCHMARK = "bench' OR '1'='1"
HOSTILE_ARCHIVE = "ehr_bench_opus46_1800_'); DELETE FROM files; --"
HOSTILE_REGION = "us-east-1'--"
HOSTILE_QIDS = [
    "q'1",
    'q"2";--',
    "q3; DROP TABLE messages",
    "q4 $key ?",
    "q5\u2028line\u0085next",  # separators that are ordinary characters inside a string
    "q6 {table}",
    "🧪" * 40,
    "q" * 2000,
]
HOSTILE_TASK = "task'); DROP VIEW leaderboard; --"


def _record(qid: str, run_index: int = 1, task: str = HOSTILE_TASK) -> bytes:
    finish = {"id": "c'1", "type": "function",
              "function": {"name": "ehr.finish",
                           "arguments": orjson.dumps({"response": ["a'b", "c"]}).decode()}}
    return orjson.dumps({
        "qid": qid, "run_index": run_index, "task": task, "label": ["a'b", "d"],
        "status": "success", "completed": True, "stop_reason": "finish_tool_call",
        "error": None, "subject_id": "10'; --", "backend_model_id": "x'); --",
        "messages": [{"role": "user", "content": "'; DROP TABLE results; --"},
                     {"role": "assistant", "content": "", "tool_calls": [finish]},
                     {"role": "tool", "content": "ok", "tool_call_id": "c'1"}]})


def _write(path: Path, lines: list[bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\n".join(lines) + b"\n")


def build_hostile_tree(root: Path) -> dict[str, list[str]]:
    """Write the tree; return the run ids and qids it must produce."""
    run_ids = []
    for model in HOSTILE_MODELS:
        run_id = f"ehr_bench/agentic/full1800/{model}"
        _write(root / run_id / "results.jsonl", [_record(q) for q in HOSTILE_QIDS])
        (root / run_id / "cmd.txt").write_text(f"python run.py --model '{model}'; rm -rf /\n")
        (root / run_id / "run.log").write_text("INFO [x'; --] started\n")
        run_ids.append(run_id)
    shard_run = f"{HOSTILE_BENCHMARK}/oneshot/full1800/{HOSTILE_MODELS[0]}"
    _write(root / shard_run / HOSTILE_REGION / "results.jsonl",
           [_record(q) for q in HOSTILE_QIDS[:3]])
    run_ids.append(shard_run)
    archive_run = f"_archive/{HOSTILE_ARCHIVE}"
    _write(root / archive_run / "results.jsonl", [_record(q) for q in HOSTILE_QIDS[:2]])
    run_ids.append(archive_run)
    return {"run_ids": run_ids}


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    base = tmp_path_factory.mktemp("hostile")
    root, db = base / "tree", base / "warehouse.duckdb"
    expected = build_hostile_tree(root)
    run_ingest(root, db, IngestOptions(jobs=1))
    return root, db, expected


def _rows(db: Path, sql: str, params: list | None = None) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def test_hostile_names_found_verbatim_in_runs_and_files(hostile_db) -> None:
    root, db, expected = hostile_db
    run_ids = {r[0] for r in _rows(db, "SELECT run_id FROM runs")}
    assert run_ids == set(expected["run_ids"])
    model_dirs = {r[0] for r in _rows(db, "SELECT model_dir FROM runs WHERE NOT is_archived")}
    assert set(HOSTILE_MODELS) <= model_dirs
    assert _rows(db, "SELECT archive_name FROM runs WHERE is_archived") == [(HOSTILE_ARCHIVE,)]
    assert _rows(db, "SELECT DISTINCT benchmark FROM runs WHERE run_id = ?",
                 [expected["run_ids"][-2]]) == [(HOSTILE_BENCHMARK,)]
    on_disk = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}
    assert {r[0] for r in _rows(db, "SELECT path FROM files")} == on_disk
    shard = f"{HOSTILE_BENCHMARK}/oneshot/full1800/{HOSTILE_MODELS[0]}/{HOSTILE_REGION}/" \
            "results.jsonl"
    assert _rows(db, "SELECT kind, loaded FROM files WHERE path = ?", [shard]) == [
        ("results_shard", True)]


def test_hostile_qids_and_tasks_found_verbatim_in_results(hostile_db) -> None:
    _, db, expected = hostile_db
    for run_id in expected["run_ids"]:
        qids = [r[0] for r in _rows(db, "SELECT qid FROM results WHERE run_id = ? ORDER BY qid",
                                    [run_id])]
        want = HOSTILE_QIDS[:3] if run_id.startswith(HOSTILE_BENCHMARK) else (
            HOSTILE_QIDS[:2] if run_id.startswith("_archive/") else HOSTILE_QIDS)
        assert qids == sorted(want), run_id
    assert _rows(db, "SELECT DISTINCT task FROM results") == [(HOSTILE_TASK,)]
    # Children keep the same keys, so joins on hostile ids work.
    n_results = _rows(db, "SELECT count(*) FROM results")[0][0]
    assert n_results == 5 * len(HOSTILE_QIDS) + 3 + 2
    joined = _rows(db, "SELECT count(DISTINCT (m.run_id, m.qid, m.run_index)) FROM messages m "
                       "JOIN results r USING (run_id, qid, run_index)")[0][0]
    assert joined == n_results
    assert _rows(db, "SELECT DISTINCT content FROM messages WHERE role = 'user'") == [
        ("'; DROP TABLE results; --",)]
    assert _rows(db, "SELECT DISTINCT subject_id_text, backend_model_id FROM results") == [
        ("10'; --", "x'); --")]
    assert _rows(db, "SELECT DISTINCT call_id FROM tool_calls") == [("c'1",)]


def test_schema_whole_and_views_work_after_hostile_ingest(hostile_db) -> None:
    _, db, _ = hostile_db
    tables = {r[0] for r in _rows(db, "SELECT table_name FROM duckdb_tables()")}
    assert {"results", "messages", "runs", "files", "rejects", "tool_calls"} <= tables
    views = {r[0] for r in _rows(db, "SELECT view_name FROM duckdb_views() WHERE NOT internal")}
    assert "leaderboard" in views
    # The hostile runs are full1800 current runs: each is on the leaderboard (label and answer
    # share one of two items: set F1 = 0.5 on every question).
    board = _rows(db, "SELECT benchmark, model, n_questions, score FROM leaderboard "
                      "ORDER BY benchmark, model")
    agentic = [row for row in board if row[0] == "ehr_bench"]
    assert len(agentic) == len(HOSTILE_MODELS)
    assert all(row[2] == len(HOSTILE_QIDS) and abs(row[3] - 0.5) < 1e-9 for row in agentic)
    assert [row for row in board if row[0] == HOSTILE_BENCHMARK][0][2] == 3
    assert _rows(db, "SELECT count(*) FROM rejects WHERE severity = 'error'") == [(0,)]


def test_run_metadata_with_hostile_text_loads_as_data(hostile_db) -> None:
    _, db, _ = hostile_db
    values = {r[0] for r in _rows(db, "SELECT value FROM run_meta")}
    assert any("'; rm -rf /" in (v or "") for v in values), values


def _non_utf8_tree(root: Path, names: list[bytes]) -> None:
    base = os.fsencode(root / "ehr_bench/agentic/full1800")
    for i, name in enumerate(names):
        os.makedirs(os.path.join(base, name))
        with open(os.path.join(base, name, b"results.jsonl"), "wb") as fh:
            fh.write(_record(f"q{i}", task="labevents") + b"\n")


def test_file_name_that_is_not_utf8_is_data_not_a_crash(tmp_path: Path) -> None:
    """Linux names are bytes: a directory name that is not UTF-8 loads under its name
    decoded with U+FFFD, with a `repaired` reject saying so; the other runs load too."""
    root, db = tmp_path / "tree", tmp_path / "warehouse.duckdb"
    _write(root / "ehr_bench/agentic/full1800/good_model/results.jsonl",
           [_record("good", task="labevents")])
    _non_utf8_tree(root, [b"bad\xff\xfe"])
    run_ingest(root, db, IngestOptions(jobs=1))
    assert _rows(db, "SELECT run_id, qid FROM results ORDER BY qid") == [
        ("ehr_bench/agentic/full1800/good_model", "good"),
        ("ehr_bench/agentic/full1800/bad\ufffd\ufffd", "q0")]
    assert _rows(db, "SELECT path, severity FROM rejects") == [
        ("ehr_bench/agentic/full1800/bad\ufffd\ufffd", "repaired")]


def test_two_non_utf8_names_that_repair_alike_lose_nothing(tmp_path: Path) -> None:
    """bad\\xff and bad\\xfe both read as bad\\ufffd: both files must still be loaded, or the
    one that cannot be must be an error reject - never silently dropped."""
    root, db = tmp_path / "tree", tmp_path / "warehouse.duckdb"
    _non_utf8_tree(root, [b"bad\xff", b"bad\xfe"])
    run_ingest(root, db, IngestOptions(jobs=1))
    loaded = {r[0] for r in _rows(db, "SELECT qid FROM results")}
    errors = _rows(db, "SELECT count(*) FROM rejects WHERE severity = 'error'")[0][0]
    assert loaded == {"q0", "q1"} or (len(loaded) == 1 and errors >= 1), (loaded, errors)
