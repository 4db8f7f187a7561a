"""The summary extractor on hand-written summary / summary_vocab / scores.json files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from etl.extract import EXTRACTORS, FileInfo
from etl.extract.summaries import extract_summary
from tests.recording import RecordingEmitter


def run(path: Path, kind: str) -> RecordingEmitter:
    emit = RecordingEmitter()
    info = FileInfo(file_id="f1", path=f"x/{path.name}", abs_path=path,
                    real_path=str(path), kind=kind)
    extract_summary(info, emit)
    return emit


MM_SUMMARY = {
    "total": 5, "incomplete": 1, "len1_accuracy": 0.5, "len1_count": 2,
    "len2plus_f1": 0.4, "len2plus_count": 3, "len2plus_f1_raw": 0.3,
    "per_task_len1": {"ehrxqa_image": {"count": 2, "accuracy": 0.5, "correct": 1,
                                       "incomplete": 0, "by_subtype": {"yesno": 2},
                                       "by_subtype_accuracy": {"yesno": 0.5}}},
    "per_task_len2plus": {"medmod_phenotyping": {"count": 3, "f1": 0.4}},
    "unified_count": 5, "unified_f1": 0.44,
    "per_task_unified": {"ehrxqa_image": {"count": 2, "f1": 0.5}},
    "vocab_model": "all-MiniLM-L6-v2", "vocab_threshold": 0.55,
    "vocab_skip_tasks": ["ehrxqa_table"],
}


def expected_leaves(value: Any, path: str = "$") -> dict[str, Any]:
    """Independent flattening of every non-string leaf, for comparison."""
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        for k, v in value.items():
            out.update(expected_leaves(v, f"{path}.{k}"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.update(expected_leaves(v, f"{path}[{i}]"))
    elif not isinstance(value, str) and value is not None:
        out[path] = float(value)
    return out


def test_registered_for_its_kinds() -> None:
    for kind in ("summary", "summary_vocab", "scores_json", "multi_summary"):
        assert EXTRACTORS[kind] is extract_summary


def test_every_number_of_a_multimodal_summary(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(MM_SUMMARY, indent=2))
    emit = run(path, "summary")
    assert emit.rejects == []
    rows = [r for t, r in emit.rows if t == "summary_metrics"]
    assert {r["json_path"]: r["value"] for r in rows} == expected_leaves(MM_SUMMARY)
    assert {r["scoring"] for r in rows} == {"summary"}
    by_path = {r["json_path"]: r for r in rows}
    top = by_path["$.len2plus_f1"]
    assert (top["scope"], top["task"], top["metric"]) == ("overall", None, "len2plus_f1")
    acc = by_path["$.per_task_len1.ehrxqa_image.accuracy"]
    assert (acc["scope"], acc["task"], acc["metric"]) == (
        "per_task_len1", "ehrxqa_image", "accuracy")
    sub = by_path["$.per_task_len1.ehrxqa_image.by_subtype_accuracy.yesno"]
    assert (sub["task"], sub["metric"]) == ("ehrxqa_image", "by_subtype_accuracy.yesno")
    assert emit.stats[-1][1] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_text_scores_layout_and_value_coercion(tmp_path: Path) -> None:
    doc = {"overall": {"total": 80, "f1": "0.25", "flag": True, "name": "x"},
           "per_task": {"labevents": {"f1": 0.5, "prediction_sources":
                                      {"finish_tool_call": 39}}},
           "per_task_type": {"decision_making": {"f1": 0.5}}}
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(doc))
    rows = [r for _, r in run(path, "scores_json").rows]
    got = {(r["scope"], r["task"], r["metric"]): r["value"] for r in rows}
    assert got == {
        ("overall", None, "total"): 80.0,
        ("overall", None, "f1"): 0.25,          # numeric string parsed
        ("overall", None, "flag"): 1.0,         # bool -> 1
        ("per_task", "labevents", "f1"): 0.5,
        ("per_task", "labevents", "prediction_sources.finish_tool_call"): 39.0,
        ("per_task_type", "decision_making", "f1"): 0.5,
    }
    assert {r["scoring"] for r in rows} == {"scores"}
    # The text scorer's --output-dir writes the same payload as summary.json.
    again = tmp_path / "summary.json"
    again.write_text(json.dumps(doc))
    assert {r["scoring"] for _, r in run(again, "summary").rows} == {"scores"}


def test_damaged_and_unreadable_files(tmp_path: Path) -> None:
    truncated = tmp_path / "summary_vocab.json"
    truncated.write_text(json.dumps(MM_SUMMARY)[:-30])
    emit = run(truncated, "summary_vocab")
    assert emit.rows == []
    assert [(line, sev) for line, sev, _, _ in emit.rejects] == [(None, "error")]

    nan = tmp_path / "summary.json"
    nan.write_text('{"total": 3, "len1_accuracy": NaN, "unified_f1": 0.5}')
    emit = run(nan, "summary")
    assert emit.rejects == []  # bare NaN is what json.dumps writes: not damage
    assert {r["metric"]: r["value"] for _, r in emit.rows} == {"total": 3.0, "unified_f1": 0.5}

    emit = run(tmp_path / "missing.json", "summary")
    assert emit.rows == [] and [(x[0], x[1]) for x in emit.rejects] == [(None, "error")]
