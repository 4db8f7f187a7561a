"""Run identity: every file lands in the run its logical path names, or is a reject with a
reason; no run is merged into another and no value is cut.

- a result file outside any run directory (a stray results.jsonl in a split directory) is a
  `rejects` row "file outside any run", never a crash on runs.run_id NOT NULL;
- an archive holding several model directories is a run per model directory
  (`_archive/<name>/<model>`); an archive that is itself one run keeps `_archive/<name>`;
- two run directories linking to one real directory are two runs, each with its rows;
- FIFOs and sockets are `rejects` rows and are never opened;
- run metadata values are kept whole (no 2,000-character cut)."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

from etl.pipeline.ingest import IngestOptions, run_ingest

RUN = "ehr_bench/agentic/full1800/claude_opus_4_6"


def _record(qid: str, answer: str = "a") -> dict[str, Any]:
    return {"qid": qid, "run_index": 1, "task": "labevents", "label": ["a"],
            "status": "success", "completed": True, "stop_reason": "finish_tool_call",
            "messages": [{"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {
                    "name": "ehr.finish",
                    "arguments": orjson.dumps({"response": [answer]}).decode()}}]}]}


def _results(directory: Path, qids: list[str], name: str = "results.jsonl",
             answer: str = "a") -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_bytes(
        b"".join(orjson.dumps(_record(q, answer)) + b"\n" for q in qids))


def _ingest(root: Path, db: Path) -> duckdb.DuckDBPyConnection:
    run_ingest(root, db, IngestOptions(jobs=1))
    return duckdb.connect(str(db), read_only=True)


def _results_by_run(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for run_id, qid in con.execute("SELECT run_id, qid FROM results ORDER BY ALL").fetchall():
        out.setdefault(run_id, []).append(qid)
    return out


def test_stray_results_file_in_a_split_directory_is_a_reject(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    _results(root / RUN, ["q1", "q2"])
    _results(root / "ehr_bench/agentic/full1800", ["s1"])  # no model directory
    _results(root / "ehr_bench", ["s2"], name="merged_unique.jsonl")
    con = _ingest(root, tmp_path / "w.duckdb")
    try:
        assert _results_by_run(con) == {RUN: ["q1", "q2"]}
        rejects = dict(con.execute("SELECT path, error FROM rejects").fetchall())
        assert set(rejects) == {"ehr_bench/agentic/full1800/results.jsonl",
                                "ehr_bench/merged_unique.jsonl"}
        assert all("file outside any run" in e for e in rejects.values()), rejects
        files = dict(con.execute("SELECT path, run_id FROM files").fetchall())
        assert files["ehr_bench/agentic/full1800/results.jsonl"] is None  # listed, not lost
    finally:
        con.close()


def test_archive_of_several_model_directories_is_a_run_per_model(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    multi = "_archive/mm_agentic_smoke5_early"
    _results(root / multi / "claude-opus-4-6", ["m1", "m2"], name="merged_unique.jsonl")
    _results(root / multi / "claude-opus-4-6" / "us-east-1", ["m1"])
    _results(root / multi / "glm-4-7", ["m1", "m2"], answer="b")  # the same questions
    single = "_archive/ehr_bench_opus46_1800_pre_ssl_retry"
    _results(root / single, ["e1", "e2"])
    _results(root / single / "us-east-1", ["e1"])  # a region shard: part of the one run
    con = _ingest(root, tmp_path / "w.duckdb")
    try:
        assert _results_by_run(con) == {f"{multi}/claude-opus-4-6": ["m1", "m2"],
                                        f"{multi}/glm-4-7": ["m1", "m2"],
                                        single: ["e1", "e2"]}
        runs = {r[0]: r[1:] for r in con.execute(
            "SELECT run_id, model, archive_name, is_archived, benchmark, mode FROM runs"
        ).fetchall()}
        assert runs[f"{multi}/claude-opus-4-6"] == (
            "claude_opus_4_6", "mm_agentic_smoke5_early", True, "mm_bench", "agentic")
        assert runs[f"{multi}/glm-4-7"][:2] == ("glm_4_7", "mm_agentic_smoke5_early")
        assert runs[single][:2] == ("claude_opus_4_6", "ehr_bench_opus46_1800_pre_ssl_retry")
        archived = dict(con.execute("SELECT run_id, model FROM archive_runs").fetchall())
        assert archived == {f"{multi}/claude-opus-4-6": "claude_opus_4_6",
                            f"{multi}/glm-4-7": "glm_4_7", single: "claude_opus_4_6"}
        assert con.execute("SELECT count(*) FROM rejects").fetchall() == [(0,)]
        # One shard copy per archive run repeats a question of its run: not a loss.
        assert con.execute("SELECT sum(n_duplicates) FROM files").fetchall() == [(2,)]
    finally:
        con.close()


def test_two_run_directories_linking_to_one_real_directory_are_two_runs(tmp_path: Path
                                                                        ) -> None:
    root = tmp_path / "tree"
    real = tmp_path / "elsewhere" / "opus"
    _results(real, ["q1", "q2"])
    (root / "ehr_bench/agentic/full1800").mkdir(parents=True)
    (root / RUN).symlink_to(real, target_is_directory=True)
    (root / "ehr_bench/agentic/full1800/opus_rerun_link").symlink_to(
        real, target_is_directory=True)
    con = _ingest(root, tmp_path / "w.duckdb")
    try:
        assert _results_by_run(con) == {RUN: ["q1", "q2"],
                                        "ehr_bench/agentic/full1800/opus_rerun_link":
                                            ["q1", "q2"]}
        real_paths = {r[0] for r in con.execute("SELECT real_path FROM files").fetchall()}
        assert real_paths == {str((real / "results.jsonl").resolve())}
    finally:
        con.close()


def test_raw_multi_model_path_stays_an_alias_of_its_model_link(tmp_path: Path) -> None:
    """The exception to a run per logical path: `_multi_eval_raw/<stamp>/<slug>` is where a
    model link points, not a second run."""
    root = tmp_path / "tree"
    raw = "mm_bench/agentic/full2703/_multi_eval_raw/full5_20260101T000000Z"
    _results(root / raw / "kimi-k2-5", ["q1"], name="merged_unique.jsonl")
    (root / "mm_bench/agentic/full2703/kimi_k2_5").symlink_to(
        "_multi_eval_raw/full5_20260101T000000Z/kimi-k2-5", target_is_directory=True)
    con = _ingest(root, tmp_path / "w.duckdb")
    try:
        assert _results_by_run(con) == {"mm_bench/agentic/full2703/kimi_k2_5": ["q1"]}
    finally:
        con.close()


def test_fifo_and_socket_are_rejects_and_never_opened(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "tree"
    _results(root / RUN, ["q1"])
    os.mkfifo(root / RUN / "merged_unique.jsonl")  # opening it for reading would block
    sock = socket.socket(socket.AF_UNIX)
    try:
        monkeypatch.chdir(root / RUN)  # a socket path has a 108-byte limit
        sock.bind("results_steal_01.jsonl")
        con = _ingest(root, tmp_path / "w.duckdb")
    finally:
        sock.close()
    try:
        rejects = dict(con.execute("SELECT path, error FROM rejects").fetchall())
        assert set(rejects) == {f"{RUN}/merged_unique.jsonl", f"{RUN}/results_steal_01.jsonl"}
        assert rejects[f"{RUN}/merged_unique.jsonl"].startswith("FIFO, not a regular file")
        assert rejects[f"{RUN}/results_steal_01.jsonl"].startswith("socket")
        assert _results_by_run(con) == {RUN: ["q1"]}
    finally:
        con.close()


def test_run_metadata_values_are_kept_whole(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    _results(root / RUN, ["q1"])
    long_list = ",".join(f"ED_Hospitalization_{10000000 + i}" for i in range(400))  # 11 kB
    (root / RUN / "status.json").write_bytes(orjson.dumps({"qids": long_list, "done": 1}))
    long_arg = "x" * 5000
    (root / RUN / "cmd.txt").write_text(f"python run.py --qids {long_list} {long_arg}\n")
    con = _ingest(root, tmp_path / "w.duckdb")
    try:
        values = {(source, key): value for source, key, value in con.execute(
            "SELECT source, key, value FROM run_meta").fetchall()}
    finally:
        con.close()
    assert values[("status", "qids")] == long_list
    assert values[("cmd", "--qids")] == long_list
    assert values[("cmd", "command")] == f"python run.py --qids {long_list} {long_arg}"
    assert long_arg in values.values()
