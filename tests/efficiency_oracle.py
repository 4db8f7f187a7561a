"""A pure-Python statement of the board's score, the cost frontier and the consistency of
attempts (docs/ANALYSIS.md), written from the documents (DESIGN.md "Scores", SCORES.md,
ANALYSIS.md) and never importing etl: it reads the warehouse's raw tables (runs, results,
question_scores, tool_calls) and computes what efficiency_frontier and attempt_consistency
must hold.

The board's score of a result: text benchmarks, the authors' text scorer's f1 as written
(status not consulted, a result without a row 0); mm_bench, the authors' rows (rescored when
the run has any, else scored, else the project's set_f1): f1 for set rows, the judge's
verdict for llm_judge rows, 0 for incomplete rows, and 0 for error and incomplete results;
a multimodal question without gold (the project's authors_mm_set row says no_gold) and no
authors' row is off the board. A question's score is the mean over its attempts, a run's
the mean over its questions."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import duckdb

MULTIMODAL = "mm_bench"
TIE = 1e-12


def _board_runs(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, Any]]:
    """Current runs of full splits (full1800, subset600, full2703, full*) with results in
    the file."""
    rows = con.execute(
        "SELECT run_id, benchmark, mode, split FROM runs WHERE NOT is_archived AND "
        "run_id IN (SELECT run_id FROM results)").fetchall()
    full = {"ehr_bench": "full1800", "agent_ehr_bench": "subset600", "mm_bench": "full2703"}
    return {r: {"benchmark": b, "mode": m} for r, b, m, s in rows
            if s is not None and (s == full.get(b) or (b not in full and s.startswith("full")))}


def _scores_of(con: duckdb.DuckDBPyConnection, scorer: str) -> dict[tuple, dict[str, Any]]:
    out = {}
    for run_id, qid, run_index, route, f1, correct, judge in con.execute(
            "SELECT run_id, qid, run_index, route, f1, correct, judge_match FROM "
            "question_scores WHERE scorer = ?", [scorer]).fetchall():
        out[(run_id, qid, run_index)] = {"route": route, "f1": f1, "correct": correct,
                                         "judge": judge}
    return out


def result_scores(con: duckdb.DuckDBPyConnection) -> dict[str, dict[tuple[str, int], float]]:
    """run_id -> {(qid, run_index): the board's score of the result}."""
    runs = _board_runs(con)
    text = _scores_of(con, "authors_text")
    rescored, scored, set_f1 = (_scores_of(con, s) for s in ("rescored", "scored", "set_f1"))
    mm_set = _scores_of(con, "authors_mm_set")
    results = con.execute("SELECT run_id, qid, run_index, status FROM results").fetchall()
    out: dict[str, dict[tuple[str, int], float]] = defaultdict(dict)
    has = {name: {k[0] for k in rows} for name, rows in
           (("rescored", rescored), ("scored", scored))}
    for run_id, qid, run_index, status in results:
        if run_id not in runs:
            continue
        key = (run_id, qid, run_index)
        if runs[run_id]["benchmark"] != MULTIMODAL:
            row = text.get(key)
            out[run_id][(qid, run_index)] = (row["f1"] or 0.0) if row else 0.0
            continue
        source = (rescored if run_id in has["rescored"] else scored if run_id in has["scored"]
                  else None)
        if source is not None:
            row = source.get(key)
            if row is None and (mm_set.get(key) or {}).get("route") == "no_gold":
                continue  # off the authors' board
            if row is None or row["route"] == "incomplete":
                value = 0.0
            elif row["route"] == "llm_judge":
                value = row["correct"] if row["correct"] is not None else float(
                    row["judge"] or 0)
            else:
                value = row["f1"] if row["f1"] is not None else (row["correct"] or 0.0)
        else:
            row = set_f1.get(key)
            value = (row["f1"] or 0.0) if row else 0.0
        if status in ("error", "incomplete"):
            value = 0.0
        out[run_id][(qid, run_index)] = value
    return dict(out)


def frontier(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, Any]]:
    """run_id -> {score, calls_per_attempt, on_frontier} of every board run."""
    runs = _board_runs(con)
    scores = result_scores(con)
    calls: dict[tuple, int] = defaultdict(int)
    for run_id, qid, run_index in con.execute(
            "SELECT run_id, qid, run_index FROM tool_calls").fetchall():
        calls[(run_id, qid, run_index)] += 1
    out = {}
    for run_id, per_result in scores.items():
        by_question: dict[str, list[float]] = defaultdict(list)
        for (qid, _), value in per_result.items():
            by_question[qid].append(value)
        score = sum(sum(v) / len(v) for v in by_question.values()) / len(by_question)
        n_calls = sum(calls[(run_id, qid, ri)] for qid, ri in per_result)
        out[run_id] = {"score": score, "calls_per_attempt": n_calls / len(per_result)}
    for run_id, row in out.items():
        board = (runs[run_id]["benchmark"], runs[run_id]["mode"])
        row["on_frontier"] = not any(
            other != run_id and (runs[other]["benchmark"], runs[other]["mode"]) == board
            and o["score"] >= row["score"] and o["calls_per_attempt"] <= row["calls_per_attempt"]
            and (o["score"] > row["score"] or o["calls_per_attempt"] < row["calls_per_attempt"])
            for other, o in out.items())
    return out


def consistency(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, str | None], dict[str, Any]]:
    """(run_id, task or None for the whole run) -> n_questions and the three agreements, over
    the board's questions with two or more attempts."""
    scores = result_scores(con)
    answers = {(r, q, i): frozenset(__import__("json").loads(p or "[]")) for r, q, i, p in
               con.execute("SELECT run_id, qid, run_index, predictions FROM question_scores "
                           "WHERE scorer = 'set_f1'").fetchall()}
    tools: dict[tuple, list[tuple[int, int, str]]] = defaultdict(list)
    for r, q, i, m, c, t in con.execute(
            "SELECT run_id, qid, run_index, msg_idx, call_idx, tool FROM tool_calls").fetchall():
        tools[(r, q, i)].append((m, c, t or "?"))
    task_of = dict(((r, q), t) for r, q, t in con.execute(
        "SELECT run_id, qid, min(task) FROM results GROUP BY run_id, qid").fetchall())
    out: dict[tuple[str, str | None], dict[str, Any]] = {}
    for run_id, per_result in scores.items():
        attempts: dict[str, list[int]] = defaultdict(list)
        for qid, ri in per_result:
            attempts[qid].append(ri)
        for qid, indexes in attempts.items():
            if len(indexes) < 2:
                continue
            values = [per_result[(qid, ri)] for ri in indexes]
            sets = {answers.get((run_id, qid, ri), frozenset()) for ri in indexes}
            sequences = {tuple(t for *_, t in sorted(tools[(run_id, qid, ri)]))
                         for ri in indexes}
            agree = (max(values) - min(values) <= TIE, len(sets) == 1, len(sequences) == 1)
            for cell in ((run_id, None), (run_id, task_of[(run_id, qid)])):
                row = out.setdefault(cell, {"n_questions": 0, "agree": [0, 0, 0]})
                row["n_questions"] += 1
                row["agree"] = [a + int(b) for a, b in zip(row["agree"], agree, strict=True)]
    return {cell: {"n_questions": row["n_questions"],
                   "outcome_agreement": row["agree"][0] / row["n_questions"],
                   "answer_agreement": row["agree"][1] / row["n_questions"],
                   "tool_sequence_agreement": row["agree"][2] / row["n_questions"]}
            for cell, row in out.items()}
