"""A small hand-written results tree with every copy kind (preferred and region copies, a
symlinked multimodal run with its steal files, score and summary files, run metadata, an
archived run, a truncated line), its records, and snapshots of a warehouse to compare an
incremental build with a full one (see tests/pipeline/test_load.py for what is compared)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import duckdb
import orjson

from etl.pipeline.ingest import IngestOptions, IngestSummary, run_ingest

AGENTIC = "ehr_bench/agentic/full1800/claude_opus_4_6"
ONESHOT = "ehr_bench/oneshot/full1800/kimi_k2_5"
MM_RAW = "mm_bench/agentic/full2703/_multi_eval_raw/full5_20260101T000000Z/glm-4-7"
MM_LINK = "mm_bench/agentic/full2703/glm_4_7"
ARCHIVE = "_archive/ehr_bench_opus46_1800_pre_ssl_retry"
IGNORED_COLUMNS = {"files": {"ingest_id"}, "rejects": {"ingest_id"}}


def record(qid: str, run_index: int = 1, answer: list[str] | None = None,
           task: str = "prescriptions") -> dict[str, Any]:
    answer = ["aspirin"] if answer is None else answer
    finish = {"id": f"c_{qid}", "type": "function",
              "function": {"name": "ehr.finish",
                           "arguments": orjson.dumps({"response": answer}).decode()}}
    return {"qid": qid, "run_index": run_index, "task": task, "label": ["aspirin", "heparin"],
            "status": "success", "completed": True, "stop_reason": "finish_tool_call",
            "subject_id": 1000 + len(qid), "question": f"question {qid}",
            "messages": [{"role": "user", "content": f"ask {qid}"},
                         {"role": "assistant", "content": "", "tool_calls": [finish]},
                         {"role": "tool", "content": "done", "tool_call_id": finish["id"]}]}


def write_jsonl(path: Path, records: list[dict[str, Any]], tail: bytes = b"") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records) + tail)


def build_tree(root: Path) -> None:
    """Every copy kind, score and summary files, run metadata, damage, a symlinked run."""
    write_jsonl(root / AGENTIC / "results.jsonl",
                [record(f"q{i}") for i in range(6)], tail=b'{"qid": "q9", "trunc')
    write_jsonl(root / AGENTIC / "us-east-1/results.jsonl", [record("q1", answer=["x"])])
    (root / AGENTIC / "run.log").write_text("2026-01-01 INFO started\n")
    (root / AGENTIC / "cmd.txt").write_text("python run.py --model opus\n")
    write_jsonl(root / ONESHOT / "results.jsonl",
                [record(f"q{i}", run_index=r) for i in range(4) for r in (1, 2)])
    write_jsonl(root / MM_RAW / "us-west-2/results.jsonl",
                [record(f"m{i}", task="medmod_phenotyping") for i in range(5)])
    write_jsonl(root / MM_RAW / "us-west-2/results_steal_01.jsonl",
                [record("m1", answer=["heparin"], task="medmod_phenotyping")])
    write_jsonl(root / MM_RAW / "us-west-2/steal_01/results.jsonl",
                [record("m1", answer=["heparin"], task="medmod_phenotyping")])
    (root / MM_LINK).symlink_to(
        "_multi_eval_raw/full5_20260101T000000Z/glm-4-7", target_is_directory=True)
    scored = root / "mm_bench/agentic/scored/glm_4_7"
    write_jsonl(scored / "rescored.jsonl",
                [{"qid": f"m{i}", "run_index": 1, "task": "medmod_phenotyping",
                  "route": "set_f1", "f1": 0.5, "precision": 0.5, "recall": 0.5,
                  "correct": 0} for i in range(5)])
    (scored / "summary_vocab.json").write_text(orjson.dumps(
        {"total": 5, "unified_f1": 0.5, "per_task_unified": {
            "medmod_phenotyping": {"count": 5, "f1": 0.5}}}).decode())
    write_jsonl(root / ARCHIVE / "results.jsonl", [record(f"q{i}") for i in range(3)])


def ingest(root: Path, db: Path, **options: Any) -> IngestSummary:
    return run_ingest(root, db, IngestOptions(jobs=1, **options))


def parsed_paths(db: Path) -> set[str]:
    """Files parsed by the ingest that built db (files.ingest_id is the parsing ingest)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {r[0] for r in con.execute(
            "SELECT path FROM files WHERE loaded AND ingest_id = "
            "(SELECT ingest_id FROM ingests ORDER BY started_at DESC LIMIT 1)").fetchall()}
    finally:
        con.close()


def snapshot(db: Path) -> dict[str, list[tuple]]:
    """Every table as sorted rows, without the columns that legitimately differ, and every
    view's definition. Not the views' rows: a view is a function of what its tables hold
    (tests/views/test_view_determinism.py proves it ignores their rows' order), so equal
    tables and equal definitions give equal views. Reading every view cost about 1.5 s of
    CPU a warehouse, twice per comparison, in some forty tests and property examples."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = [r[0] for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'").fetchall()]
        out: dict[str, list[tuple]] = {"<view definitions>": sorted(con.execute(
            "SELECT view_name, sql FROM duckdb_views() WHERE schema_name = 'main' "
            "AND NOT internal").fetchall())}
        for name in sorted(names):
            relation = con.table(name)
            if name == "ingests":
                relation = relation.order("started_at DESC").limit(1).select(
                    "n_files, n_results, n_rejects, root, options")
            elif name == "leaderboard_history":
                relation = relation.filter(
                    "ingest_seq = (SELECT max(ingest_seq) FROM leaderboard_history)").select(
                    "benchmark, mode, model, run_id, score, rank, n_questions")
            else:
                keep = [c for c in relation.columns if c not in IGNORED_COLUMNS.get(name, ())]
                relation = relation.select(*[duckdb.ColumnExpression(c) for c in keep])
            out[name] = sorted((tuple(stable(v) for v in row) for row in relation.fetchall()),
                               key=repr)
        return out
    finally:
        con.close()


def stable(value: Any) -> Any:
    if not isinstance(value, float):
        return value
    return 0.0 if abs(value) < 1e-12 else float(f"{value:.12g}")


def assert_same_warehouse(incremental: Path, full: Path) -> None:
    inc, ref = snapshot(incremental), snapshot(full)
    assert sorted(inc) == sorted(ref)
    for name in ref:
        assert inc[name] == ref[name], f"{name} differs from the full rebuild"


def backdate(path: Path, seconds: float = 86_400) -> None:
    """Move a file's modification time back (an old truncated line is damage, a fresh one a
    line its writer is still on)."""
    st_ = path.stat()
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns - int(seconds * 1e9)))
