"""A run_index written as a bare NaN or Infinity (what Python's json.dumps writes for a float
nan or inf) names no attempt: it is an error reject like 1.5, never attempt 1. etl/read.py
loads a bare NaN as null, and a null run_index is attempt 1; so a later line with a NaN
run_index used to replace the real attempt 1 of its question (the last record of a key
wins), its wrong answer scored instead of the right one, without a reject."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from etl.pipeline.ingest import IngestOptions, run_ingest
from tests.wide_tree import one_shot_record

RUN = "ehr_bench/oneshot/full1800/model_a"


@pytest.mark.parametrize("bare", ["NaN", "Infinity", "-Infinity"])
def test_a_nonfinite_run_index_is_rejected_and_replaces_nothing(tmp_path: Path,
                                                                 bare: str) -> None:
    root = tmp_path / "tree"
    (root / RUN).mkdir(parents=True)
    right = one_shot_record("labevents_000001", "labevents", ["aspirin"], ["aspirin"])
    wrong = one_shot_record("labevents_000001", "labevents", ["aspirin"], ["heparin"])
    wrong["run_index"] = float("nan")
    lines = [json.dumps(right), json.dumps(wrong).replace('"run_index": NaN',
                                                          f'"run_index": {bare}')]
    (root / RUN / "results.jsonl").write_text("\n".join(lines) + "\n")
    # The authors' score files: a scored line, and a per-question record whose run entry
    # names its attempt so.
    (root / RUN / "scored.jsonl").write_text(
        json.dumps({"qid": "labevents_000001", "run_index": 1, "f1": 1.0}) + "\n"
        + f'{{"qid": "labevents_000001", "run_index": {bare}, "f1": 0.0}}\n')
    (root / RUN / "per_question.jsonl").write_text(
        f'{{"qid": "labevents_000001", "runs": [{{"run_index": {bare}, "f1": 0.0}}]}}\n')
    db = tmp_path / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1))
    with duckdb.connect(str(db), read_only=True) as con:
        results = con.execute("SELECT run_index, prediction FROM results").fetchall()
        scored = con.execute("SELECT f.kind, q.run_index, q.f1 FROM question_scores AS q "
                             "JOIN files AS f USING (file_id) WHERE f.kind IN "
                             "('scored', 'per_question') ORDER BY ALL").fetchall()
        rejects = con.execute("SELECT f.kind, r.line_no, r.severity, r.error FROM rejects "
                              "AS r JOIN files AS f USING (file_id) ORDER BY ALL").fetchall()
    assert results == [(1, '["aspirin"]')], results
    assert scored == [("scored", 1, 1.0)], scored
    assert [(k, n, s) for k, n, s, _ in rejects] == [
        ("per_question", 1, "error"), ("results_top", 2, "error"), ("scored", 2, "error")]
    for _, _, _, error in rejects:
        assert "run_index" in error and "NaN or Infinity is not a positive integer" in error
