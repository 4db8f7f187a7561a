"""The results extractor on real files: damage, repairs, identity rejects, file stats."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from etl.extract import EXTRACTORS, FileInfo, ParseOptions
from etl.extract.results import extract_results
from tests.recording import TableRecorder

RESULT_KINDS = ("results_merged", "results_top", "results_shard", "results_steal",
                "results_steal_copy")

def record(qid: str, run_index: int | None = 1, answer: list[str] | None = None) -> dict:
    rec: dict[str, Any] = {
        "qid": qid, "status": "success", "completed": True, "task": "labevents",
        "label": ["a", "b"],
        "messages": [
            {"role": "user", "content": "q \u2028 with a line separator"},
            {"role": "assistant", "content": "", "tool_calls": [{
                "id": "c1", "type": "function",
                "function": {"name": "ehr.finish",
                             "arguments": json.dumps({"response": answer or ["a"]})}}]},
            {"role": "tool", "content": "Finish", "tool_call_id": "c1"}]}
    if run_index is not None:
        rec["run_index"] = run_index
    return rec


def dumps(rec: dict, ascii_only: bool = False) -> bytes:
    return json.dumps(rec, ensure_ascii=ascii_only).encode()


def file_info(path: Path, **options: Any) -> FileInfo:
    return FileInfo(file_id="f" * 16, path="ehr_bench/agentic/full1800/m/results.jsonl",
                    abs_path=path, real_path=str(path), kind="results_top",
                    run_id="ehr_bench/agentic/full1800/m", parse=ParseOptions(**options))


@pytest.fixture()
def damaged_file(tmp_path: Path) -> Path:
    nan_rec = record("q-nan")
    nan_rec["hadm_id"] = 12345
    nan_line = dumps(nan_rec).replace(b'"hadm_id": 12345', b'"hadm_id": NaN')
    lines = [
        b"\xef\xbb\xbf" + dumps(record("q1"), ascii_only=True) + b"\r",  # BOM + CRLF
        dumps(record("q2", run_index=None)),
        b"",  # blank line: not damage
        dumps(record("q3")) + dumps(record("q4", run_index=2)),  # two objects: }{
        nan_line,
        dumps({"run_index": 1, "status": "ok"}),  # no qid
        dumps({"qid": "q5", "run_index": "many"}),  # unusable run_index
        b"[1, 2, 3]",  # not an object
        dumps(record("q6", run_index="2")),
        dumps(record("q7"))[:60],  # truncated last line (killed writer)
    ]
    path = tmp_path / "results.jsonl"
    path.write_bytes(b"\n".join(lines))
    return path


def test_registered_for_every_result_kind() -> None:
    # Importing the module registers it (load_all would also import others' extractors).
    for kind in RESULT_KINDS:
        assert EXTRACTORS[kind] is extract_results


def test_damaged_file(damaged_file: Path) -> None:
    emit = TableRecorder()
    extract_results(file_info(damaged_file), emit)
    results = emit.rows["results"]
    by_qid = {r["qid"]: r for r in results}
    assert sorted(by_qid) == ["q-nan", "q1", "q2", "q3", "q4", "q6"]
    # line numbers are physical lines; rec_no counts every decoded object
    assert [(r["qid"], r["line_no"], r["rec_no"]) for r in results] == [
        ("q1", 1, 1), ("q2", 2, 2), ("q3", 4, 3), ("q4", 4, 4), ("q-nan", 5, 5),
        ("q6", 9, 8)]
    assert by_qid["q2"]["run_index"] == 1 and by_qid["q4"]["run_index"] == 2
    assert by_qid["q6"]["run_index"] == 2
    # bare NaN is writer-valid (Python json.dumps): NULL, the path noted, no reject
    assert by_qid["q-nan"]["hadm_id"] is None
    assert by_qid["q-nan"]["nonfinite_keys"] == '["hadm_id"]'
    assert by_qid["q1"].get("nonfinite_keys") is None
    assert "\u2028" in emit.rows["messages"][0]["content"]

    severities = {line: sev for line, sev, _, _ in emit.rejects}
    assert severities == {4: "repaired", 6: "error", 7: "error", 8: "error", 10: "error"}
    messages = {line: err for line, _, err, _ in emit.rejects}
    assert "record has no qid" in messages[6]
    assert "run_index" in messages[7] and "q5" in messages[7]
    assert all(excerpt for _, _, _, excerpt in emit.rejects)
    assert sum(1 for line, *_ in emit.rejects if line == 4) == 1  # one reject per line

    # children carry the parent's identity and rec_no
    for table in ("messages", "tool_calls", "question_scores"):
        keys = {(r["qid"], r["run_index"], r["rec_no"]) for r in emit.rows[table]}
        assert keys == {(r["qid"], r["run_index"], r["rec_no"]) for r in results}
    # one row per result and scorer: the project's set_f1, the authors' text scorer, its
    # text-fallback option, the authors' legacy text rule and the paper's two text rules
    scorers = {r["scorer"] for r in emit.rows["question_scores"]}
    assert scorers == {"set_f1", "authors_text", "authors_text_fallback", "authors_text_legacy",
                       "paper_text", "paper_agentehr"}
    assert len(emit.rows["question_scores"]) == len(results) * len(scorers)

    raw = damaged_file.read_bytes()
    assert emit.stats == {"n_lines": raw.count(b"\n") + 1,
                          "sha256": hashlib.sha256(raw).hexdigest()}


def test_clean_file_has_no_rejects_and_scores(tmp_path: Path) -> None:
    path = tmp_path / "merged_unique.jsonl"
    recs = [record("a", answer=["a", "b"]), record("b", answer=["c"]), record("c", 3)]
    path.write_bytes(b"".join(dumps(r) + b"\n" for r in recs))
    emit = TableRecorder()
    extract_results(file_info(path), emit)
    assert emit.rejects == []
    assert [r["qid"] for r in emit.rows["results"]] == ["a", "b", "c"]
    f1 = {s["qid"]: s["f1"] for s in emit.rows["question_scores"] if s["scorer"] == "set_f1"}
    # gold {a, b}: answer {a, b} -> 1; {c} -> 0; {a} -> P 1, R 1/2, F1 2/3
    assert f1 == {"a": 1.0, "b": 0.0, "c": pytest.approx(2 / 3)}
    assert emit.stats["n_lines"] == 3


def test_missing_file_is_a_reject_not_a_crash(tmp_path: Path) -> None:
    emit = TableRecorder()
    extract_results(file_info(tmp_path / "gone.jsonl"), emit)
    assert emit.rows == {}
    [(line_no, severity, error, _)] = emit.rejects
    assert line_no is None and severity == "error" and "results.jsonl" in error
