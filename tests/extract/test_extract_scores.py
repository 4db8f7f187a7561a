"""The score-file extractor on hand-written scored / rescored / per_question files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from etl.extract import EXTRACTORS, FileInfo
from etl.extract.scores import extract_scores
from tests.recording import RecordingEmitter


def file_info(path: Path, kind: str) -> FileInfo:
    return FileInfo(file_id="f1", path=f"mm_bench/oneshot/scored/m/{path.name}",
                    abs_path=path, real_path=str(path), kind=kind,
                    run_id="mm_bench/oneshot/full2703/m")


def run(path: Path, kind: str) -> RecordingEmitter:
    emit = RecordingEmitter()
    extract_scores(file_info(path, kind), emit)
    return emit


SET_ROW = {"qid": "q1", "run_index": 2, "task": "medmod_phenotyping", "route": "set_f1",
           "len_gold": 3, "gold_names": ["a", "b", "c"], "prediction_strs": ["a", "x"],
           "note": "ok", "status": "success", "precision": 0.5, "recall": 1 / 3,
           "f1": 0.4, "accuracy": 0.25, "subset_match": 0.0, "tp": 1, "n_pred": 2,
           "n_gold": 3, "precision_raw": 0.0, "recall_raw": 0.0, "f1_raw": 0.0,
           "accuracy_raw": 0.0, "subset_match_raw": 0.0, "vocab_mapped": True}
JUDGE_ROW = {"qid": "q2", "task": "ehrxqa_image", "route": "llm_judge", "len_gold": 1,
             "gold_names": ["yes"], "judge_subtype": "yesno", "judge_match": True,
             "correct": True, "precision": 1.0, "recall": 1.0, "f1": 1.0, "accuracy": 1.0,
             "subset_match": 1.0, "status": "ok"}
INCOMPLETE_ROW = {"qid": "q3", "run_index": 1, "task": "ehrxqa_table", "route": "incomplete",
                  "gold_names": ["1", "2"], "note": "no_finish_call", "correct": False,
                  "precision": 0.0, "recall": 0.0, "f1": 0.0, "status": "incomplete"}


def write_lines(path: Path, lines: list[str | bytes]) -> Path:
    data = b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in lines)
    path.write_bytes(data)
    return path


def test_registered_for_its_kinds() -> None:
    for kind in ("scored", "rescored", "per_question"):
        assert EXTRACTORS[kind] is extract_scores


@pytest.mark.parametrize("kind", ["scored", "rescored"])
def test_clean_scored_file(tmp_path: Path, kind: str) -> None:
    records = [SET_ROW, JUDGE_ROW, INCOMPLETE_ROW]
    path = write_lines(tmp_path / f"{kind}.jsonl", [json.dumps(r) for r in records])
    emit = run(path, kind)
    assert emit.rejects == []
    # each line also as the paper's chain reads it (reorganize_results.py load_mm_bench_rows)
    lines = [r for t, r in emit.rows if t == "line_scores"]
    assert [(r["scorer"], r["kind"], r["qid"], r["f1"]) for r in lines] == [
        ("paper_mm", kind, rec["qid"], float(rec.get("f1") or 0.0)) for rec in records]
    emit.rows = [(t, r) for t, r in emit.rows if t != "line_scores"]
    assert [t for t, _ in emit.rows] == ["question_scores"] * 3
    rows = {r["qid"]: r for _, r in emit.rows}
    assert all(r["scorer"] == kind for r in rows.values())
    s = rows["q1"]
    assert (s["run_index"], s["route"], s["task"]) == (2, "set_f1", SET_ROW["task"])
    for ours, theirs in (("precision", "precision"), ("recall", "recall"), ("f1", "f1"),
                         ("accuracy", "accuracy"), ("exact_match", "subset_match"),
                         ("f1_raw", "f1_raw"), ("exact_match_raw", "subset_match_raw")):
        assert s[ours] == SET_ROW[theirs]
    assert (s["n_pred"], s["n_gold"], s["tp"], s["len_gold"]) == (2, 3, 1, 3)
    assert s["vocab_mapped"] is True
    j = rows["q2"]
    assert j["run_index"] == 1  # missing run_index is run 1
    assert (j["judge_subtype"], j["judge_match"], j["correct"]) == ("yesno", True, 1.0)
    i = rows["q3"]
    assert i["correct"] == 0.0 and i["note"] == "no_finish_call"
    # len_gold missing: the length of gold_names decides len1 vs len2plus
    assert i["len_gold"] == len(INCOMPLETE_ROW["gold_names"])
    assert [r["line_no"] for _, r in emit.rows] == [1, 2, 3]
    assert [r["rec_no"] for _, r in emit.rows] == [1, 2, 3]
    assert not any("run_id" in r or "file_id" in r for _, r in emit.rows)
    n_lines, sha = emit.stats[-1]
    assert n_lines == 3 and sha == hashlib.sha256(path.read_bytes()).hexdigest()


def test_damaged_scored_file(tmp_path: Path) -> None:
    two_on_one = json.dumps(SET_ROW) + json.dumps({**JUDGE_ROW, "qid": "q9"})
    nan_row = json.dumps(JUDGE_ROW).replace('"precision": 1.0', '"precision": NaN')
    lines: list[str | bytes] = [
        json.dumps(SET_ROW),                      # 1 clean
        two_on_one,                               # 2 repaired: two records
        "",                                       # 3 blank: not damage
        json.dumps({"task": "x", "f1": 1.0}),      # 4 no qid -> error
        "[1, 2]",                                 # 5 array -> error
        nan_row,                                  # 6 NaN: writer-valid, precision NULL
        json.dumps({"qid": "q7", "run_index": "two"}),  # 7 bad run_index -> error
        json.dumps(INCOMPLETE_ROW)[:40],          # 8 truncated -> error
    ]
    path = write_lines(tmp_path / "scored.jsonl", lines)
    emit = run(path, "scored")
    emit.rows = [(t, r) for t, r in emit.rows if t != "line_scores"]
    by_line = {}
    for line_no, severity, error, excerpt in emit.rejects:
        by_line.setdefault(line_no, []).append((severity, error))
        assert excerpt  # a reject says what the line looked like
    assert sorted(by_line) == [2, 4, 5, 7, 8]
    assert [s for s, _ in by_line[2]] == ["repaired"]  # one reject for the line
    assert by_line[4] == [("error", "record has no qid")]
    assert all(s == "error" for line in (5, 7, 8) for s, _ in by_line[line])
    loaded = [(r["line_no"], r["qid"]) for _, r in emit.rows]
    assert loaded == [(1, "q1"), (2, "q1"), (2, "q9"), (6, "q2")]
    # rec_no counts records, so the second object of line 2 is record 3
    assert [r["rec_no"] for _, r in emit.rows] == [1, 2, 3, 5]
    nan_loaded = [r for _, r in emit.rows if r["line_no"] == 6][0]
    assert nan_loaded["precision"] is None and nan_loaded["f1"] == 1.0
    assert emit.stats[-1][0] == len(lines)


def test_per_question_runs(tmp_path: Path) -> None:
    runs = [
        {"predictions": ["a", "b"], "prediction_source": "finish_tool_call", "f1": 0.5,
         "precision": 0.5, "recall": 0.5, "em": 0.0, "tool_calls": 7, "turns": 4},
        {"predictions": [], "prediction_source": "no_prediction", "f1": 0.0,
         "precision": 0.0, "recall": 0.0, "em": 0.0, "tool_calls": 2, "turns": 2},
    ]
    f1s = [r["f1"] for r in runs]
    answered = {"qid": "labevents_1_2", "task": "labevents", "task_type": "decision_making",
                "runs": runs, "num_runs": 2, "avg_f1": sum(f1s) / len(f1s), "avg_em": 0.0,
                "avg_precision": 0.25, "avg_recall": 0.25}
    unanswered = {"qid": "labevents_3_4", "task": "labevents",
                  "task_type": "decision_making", "runs": [], "avg_f1": 0.0, "avg_em": 0.0}
    bad_runs = {"qid": "labevents_5_6", "runs": [1, 2]}
    path = write_lines(tmp_path / "per_question.jsonl",
                       [json.dumps(answered), json.dumps(unanswered), json.dumps(bad_runs)])
    emit = run(path, "per_question")
    rows = [r for _, r in emit.rows]
    assert [(r["qid"], r["run_index"]) for r in rows] == [
        ("labevents_1_2", 1), ("labevents_1_2", 2), ("labevents_3_4", None)]
    for row, src in zip(rows[:2], runs, strict=True):
        assert (row["f1"], row["exact_match"], row["tool_calls"], row["turns"]) == (
            src["f1"], src["em"], src["tool_calls"], src["turns"])
        assert row["n_pred"] == len(src["predictions"])
        assert row["note"] == src["prediction_source"]
        assert row["avg_f1"] == answered["avg_f1"] and row["n_runs"] == len(runs)
        assert row["scorer"] == "per_question" and row["task_type"] == "decision_making"
    placeholder = rows[2]
    assert placeholder["status"] == "no_runs" and placeholder["n_runs"] == 0
    assert placeholder.get("f1") is None  # omitted columns load as NULL
    assert [(line, sev) for line, sev, _, _ in emit.rejects] == [(3, "error")]
    assert "runs[0]" in emit.rejects[0][2]


def test_missing_file_is_one_reject(tmp_path: Path) -> None:
    emit = run(tmp_path / "gone.jsonl", "scored")
    assert emit.rows == []
    assert len(emit.rejects) == 1 and emit.rejects[0][:2] == (None, "error")
    assert "gone.jsonl" in emit.rejects[0][2] or "No such file" in emit.rejects[0][2]
