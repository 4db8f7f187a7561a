"""The leaderboard of the demo tree, recomputed here from the raw result files with the
rules of DESIGN.md, written out again independently of etl/ (copy preference; for text
runs the authors' scorer: last call whose name contains "finish", JSON else Python-literal
arguments, string items only, lower-cased not stripped, status not consulted; mean over
runs then over questions), and compared with the generator's truth file (whose text
leaderboard comes from the synth's own ports of the authors' scorer)."""

from __future__ import annotations

import ast
import json
import math
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest

RANK = {"results_merged": 1, "results_top": 2, "results_shard": 3, "results_steal": 4,
        "results_steal_copy": 5}


def _objects(raw: bytes) -> list[dict]:
    """Every JSON object a line holds (none for a damaged line); NaN is read as null."""
    text = raw.decode("utf-8", errors="replace").strip()
    if not text:
        return []
    decoder = json.JSONDecoder(parse_constant=lambda _: None)
    out, pos = [], 0
    try:
        while pos < len(text):
            obj, pos = decoder.raw_decode(text, pos)
            out.append(obj)
            while pos < len(text) and text[pos].isspace():
                pos += 1
    except ValueError:
        return []
    return [o for o in out if isinstance(o, dict)]


def _gold(label) -> set[str]:
    """The authors' gold: a string is one item; a list gives its strings and, for objects,
    atc_name when any object has a truthy one (else name); lower-cased, never stripped."""
    if isinstance(label, str):
        return {label.lower()}
    if not isinstance(label, list):
        return set()
    objects = [x for x in label if isinstance(x, dict)]
    key = "atc_name" if any(o.get("atc_name") for o in objects) else "name"
    out = {x.lower() for x in label if isinstance(x, str)}
    return out | {o[key].lower() for o in objects if isinstance(o.get(key), str)}


def _prediction(record: dict) -> set[str]:
    last = None
    for message in record.get("messages") or []:
        for call in (message.get("tool_calls") or []) if isinstance(message, dict) else []:
            fn = call.get("function") or {}
            if "finish" in str(fn.get("name", "")).lower():
                last = fn
    if last is None:
        return set()
    args = last.get("arguments", {})
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            try:
                args = ast.literal_eval(args)
            except (ValueError, SyntaxError):
                return set()
    response = args.get("response", []) if isinstance(args, dict) else args
    if isinstance(response, str):
        response = [response.strip()] if response.strip() else []
    if not isinstance(response, list):
        return set()
    return {x.lower() for x in response if isinstance(x, str)}


def _f1(pred: set[str], gold: set[str]) -> float:
    if not pred or not gold:
        return 0.0
    hit = len(pred & gold)
    if hit == 0:
        return 0.0
    p, r = hit / len(pred), hit / len(gold)
    return 2 * p * r / (p + r)


def _expected_scores(root: Path, truth: dict) -> dict[str, tuple[int, float]]:
    runs = {r["run_id"]: r for r in truth["runs"]
            if not r["is_archived"]
            and (r["split"].startswith("full") or r["split"] == "subset600")
            and r["benchmark"] in ("ehr_bench", "agent_ehr_bench")}
    copies: dict[tuple, tuple] = {}
    for f in sorted(truth["files"], key=lambda f: f["path"]):
        if f["run_id"] not in runs or f["kind"] not in RANK:
            continue
        with open(root / f["path"], "rb") as fh:
            rec_no = 0
            for raw in fh:
                for obj in _objects(raw):
                    rec_no += 1
                    if "qid" not in obj:
                        continue
                    key = (f["run_id"], str(obj["qid"]), int(obj.get("run_index") or 1))
                    order = (RANK[f["kind"]], f["path"], -rec_no)
                    if key not in copies or order < copies[key][0]:
                        copies[key] = (order, obj)
    per_question: dict[tuple, list[float]] = defaultdict(list)
    for (run_id, qid, _), (_, obj) in copies.items():
        # status not consulted; raw QA rows of eval_ehrbench_qa.py keep the gold in
        # ground_truth (no label)
        gold = obj["label"] if "label" in obj else obj.get("ground_truth")
        score = _f1(_prediction(obj), _gold(gold))
        per_question[(run_id, qid)].append(score)
    per_run: dict[str, list[float]] = defaultdict(list)
    for (run_id, _), scores in per_question.items():
        per_run[run_id].append(sum(scores) / len(scores))
    return {run_id: (len(s), sum(s) / len(s)) for run_id, s in per_run.items()}


def test_text_leaderboard_matches_the_result_files(demo_tree, demo_db):
    root, truth = demo_tree
    expected = _expected_scores(root, truth)
    con = duckdb.connect(str(demo_db), read_only=True)
    try:
        got = {r[0]: (r[1], r[2], r[3]) for r in con.execute(
            "SELECT run_id, n_questions, score, score_source FROM leaderboard "
            "WHERE benchmark IN ('ehr_bench', 'agent_ehr_bench')").fetchall()}
    finally:
        con.close()
    assert set(got) == set(expected)
    for run_id, (n, score) in expected.items():
        assert got[run_id][0] == n, run_id
        assert got[run_id][1] == pytest.approx(score, abs=1e-9), run_id
        assert got[run_id][2] == "authors_text"
        assert 0.0 <= score <= 1.0 and not math.isnan(score)


def test_text_leaderboard_equals_the_truth_file(demo_tree, demo_db):
    _, truth = demo_tree
    want = {r["run_id"]: r for r in truth["text_leaderboard"]}
    assert want, "the truth file has a text leaderboard"
    con = duckdb.connect(str(demo_db), read_only=True)
    try:
        board = {r[0]: r[1:] for r in con.execute(
            "SELECT run_id, n_questions, score FROM leaderboard "
            "WHERE benchmark IN ('ehr_bench', 'agent_ehr_bench')").fetchall()}
        tasks = {(r[0], r[1]): r[2:] for r in con.execute(
            "SELECT run_id, task, n_questions, score FROM leaderboard_by_task "
            "WHERE benchmark IN ('ehr_bench', 'agent_ehr_bench')").fetchall()}
        groups = {(r[0], r[1]): r[2:] for r in con.execute(
            "SELECT run_id, task_group, n_questions, score FROM leaderboard_by_group "
            "WHERE benchmark IN ('ehr_bench', 'agent_ehr_bench')").fetchall()}
        sources = {(r[0], r[1]): r[2] for r in con.execute(
            "SELECT q.run_id, q.prediction_source, count(*) FROM question_scores AS q "
            "JOIN leaderboard_runs AS lr ON lr.run_id = q.run_id "
            "WHERE q.scorer = 'authors_text' AND lr.benchmark <> 'mm_bench' "
            "GROUP BY ALL").fetchall()}
    finally:
        con.close()
    assert set(board) == set(want)
    for run_id, run in want.items():
        assert board[run_id][0] == run["n_questions"]
        assert board[run_id][1] == pytest.approx(run["score"], abs=1e-12), run_id
        for task, block in run["per_task"].items():
            assert tasks[(run_id, task)] == (block["n_questions"], pytest.approx(
                block["score"], abs=1e-12)), (run_id, task)
        for group, block in run["per_task_type"].items():
            assert groups[(run_id, group)] == (block["n_questions"], pytest.approx(
                block["score"], abs=1e-12)), (run_id, group)
        assert {s: n for (r, s), n in sources.items() if r == run_id} == run[
            "prediction_sources"]


def test_planted_writer_habits_are_scored_by_the_authors_rules(demo_tree, demo_db):
    _, truth = demo_tree
    planted = truth["planted_shapes"]
    assert {p["shape"] for p in planted} == {"padded", "python_args", "functions_finish",
                                             "incomplete_finish", "nonstring_items"}
    con = duckdb.connect(str(demo_db), read_only=True)
    try:
        rows = {(r[0], r[1], r[2]): r[3:] for r in con.execute(
            "SELECT q.run_id, q.qid, q.run_index, q.prediction_source, q.predictions, "
            "res.status, tc.tool FROM question_scores AS q "
            "JOIN results AS res USING (run_id, qid, run_index) "
            "LEFT JOIN (SELECT run_id, qid, run_index, max(raw_tool) AS tool FROM tool_calls "
            "           WHERE raw_tool LIKE '%finish%' GROUP BY ALL) AS tc "
            "    USING (run_id, qid, run_index) "
            "WHERE q.scorer = 'authors_text'").fetchall()}
    finally:
        con.close()
    for p in planted:
        source, predictions, status, tool = rows[(p["run_id"], p["qid"], p["run_index"])]
        items = json.loads(predictions)
        # every planted habit keeps a finish answer the authors' scorer reads
        assert source == "finish_tool_call", p
        if p["shape"] == "padded" and items:
            assert items[0] != items[0].strip(), p
        elif p["shape"] == "nonstring_items":
            assert any(not isinstance(x, str) for x in items), p
        elif p["shape"] == "incomplete_finish":
            assert status == "incomplete", p
        elif p["shape"] == "functions_finish":
            assert tool == "functions.finish", p


def _expected_mm_scores(root: Path, truth: dict) -> dict[str, tuple[int, float]]:
    """mm_bench runs are scored by the authors' per-question rows (scored.jsonl for
    one-shot, rescored.jsonl for agentic): judge verdict for judge rows, 0 for incomplete
    ones, F1 for set rows; the last row of a (qid, run_index) counts."""
    wanted = {"oneshot": "scored.jsonl", "agentic": "rescored.jsonl"}
    runs = {r["run_id"]: r for r in truth["runs"] if not r["is_archived"]
            and r["benchmark"] == "mm_bench" and r["split"].startswith("full")}
    rows: dict[tuple, dict] = {}
    for f in truth["files"]:
        run = runs.get(f["run_id"])
        if run is None or not f["path"].endswith("/" + wanted[run["mode"]]):
            continue
        with open(root / f["path"], "rb") as fh:
            for raw in fh:
                for obj in _objects(raw):
                    if "qid" in obj:
                        rows[(f["run_id"], str(obj["qid"]), int(obj.get("run_index") or 1))] = obj
    per_question: dict[tuple, list[float]] = defaultdict(list)
    for (run_id, qid, _), obj in rows.items():
        if obj.get("route") == "llm_judge":
            score = float(obj.get("correct") or 0)
        elif obj.get("route") == "incomplete":
            score = 0.0
        else:
            score = float(obj.get("f1") or 0)
        per_question[(run_id, qid)].append(score)
    per_run: dict[str, list[float]] = defaultdict(list)
    for (run_id, _), scores in per_question.items():
        per_run[run_id].append(sum(scores) / len(scores))
    return {run_id: (len(s), sum(s) / len(s)) for run_id, s in per_run.items()}


def test_mm_leaderboard_matches_the_authors_score_files(demo_tree, demo_db):
    root, truth = demo_tree
    expected = _expected_mm_scores(root, truth)
    assert expected, "the demo tree has scored mm_bench runs"
    con = duckdb.connect(str(demo_db), read_only=True)
    try:
        got = {r[0]: (r[1], r[2], r[3]) for r in con.execute(
            "SELECT run_id, n_questions, score, score_source FROM leaderboard "
            "WHERE benchmark = 'mm_bench'").fetchall()}
    finally:
        con.close()
    for run_id, (n, score) in expected.items():
        assert got[run_id][2] in ("scored", "rescored"), run_id
        assert got[run_id][0] == n, run_id
        assert got[run_id][1] == pytest.approx(score, abs=1e-9), run_id
