"""The explorer's failures page (/failures?benchmark=..&mode=..): why each run of a board
fails, what it spends and how consistent its attempts are (views failure_profile,
failure_kinds, efficiency, efficiency_frontier, attempt_consistency; docs/ANALYSIS.md), and
the failure chips of the trajectory, side-by-side and compare pages. Rows come from the
memos sql/queries/serve_memo_{failure_profile,failure_kinds,efficiency,consistency,failures}
.sql and from serve_trajectory_failures.sql; every number drawn is a column of a view."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from etl.serve.live import ServeWarehouse
from etl.serve.pages import HOME, NotFound, Page, Table, url

KINDS_SHOWN = 40  # labelled-call kinds listed per board (the JSON holds every one)


def page_failures(wh: ServeWarehouse, request: Request) -> Page:
    benchmark = request.query_params.get("benchmark") or ""
    mode = request.query_params.get("mode") or ""
    if not (benchmark and mode):
        raise NotFound("give benchmark and mode")
    profile = wh.board("failure_profile", benchmark, mode)
    if not profile:
        raise NotFound(f"no failure labels for the board {benchmark} {mode}")
    efficiency = wh.board("efficiency", benchmark, mode)
    consistency = wh.board("consistency", benchmark, mode)
    kinds = wh.board("failure_kinds", benchmark, mode)
    questions = lambda r: url("/questions", run=r["run_id"])  # noqa: E731 - a link rule

    labels = Table.of(profile, display_name=questions)
    labels.html_columns = ["display_name", "title", "n_results", "share", "points_lost",
                           "score_lost"]
    labels.headers = {"display_name": "model", "title": "label", "n_results": "results",
                      "points_lost": "points lost", "score_lost": "score lost"}
    labels.note = ("Each result carries every label of its calls and of its whole trajectory "
                   "(clean: none). Points lost: the questions' worth of score the run lost on "
                   "the results carrying the label, as the board counts questions; score "
                   "lost: the same as a fraction of the run's score. A result with several "
                   "labels counts under each.")
    labels.html_rows = None

    spent = Table.of(efficiency, display_name=questions)
    spent.html_columns = ["display_name", "score", "calls_per_question", "calls_per_attempt",
                          "steps_per_question", "chars_per_question", "calls_per_point",
                          "tokens_per_question", "on_frontier"]
    spent.headers = {"display_name": "model", "calls_per_question": "calls / question",
                     "calls_per_attempt": "calls / attempt",
                     "steps_per_question": "steps / question",
                     "chars_per_question": "characters read / question",
                     "calls_per_point": "calls / point", "tokens_per_question": "tokens / question",
                     "on_frontier": "on the frontier"}
    spent.display = {"on_frontier": lambda r: "✓" if r["on_frontier"] else None}
    spent.note = ("Records carry no token counts (tokens only where a record counts them), so "
                  "the cost is tool calls, steps and characters of tool results read. A point "
                  "is a question answered right. On the frontier: no other run of the board "
                  "scores as high with fewer calls per attempt.")
    spent.html_rows = None

    agree = Table.of(consistency, display_name=questions)
    agree.html_columns = ["display_name", "n_questions", "n_attempts", "outcome_agreement",
                          "answer_agreement", "tool_sequence_agreement"]
    agree.headers = {"display_name": "model", "n_questions": "questions",
                     "n_attempts": "attempts", "outcome_agreement": "same score",
                     "answer_agreement": "same answer", "tool_sequence_agreement": "same tools"}
    agree.note = "Over the questions with two or more attempts: the share whose attempts agree."

    kind_rows = Table.of(kinds, display_name=questions)
    kind_rows.html_columns = ["display_name", "title", "detail", "tool", "n_calls", "n_results",
                              "share_of_calls"]
    kind_rows.headers = {"display_name": "model", "title": "label", "detail": "kind",
                         "n_calls": "calls", "n_results": "results",
                         "share_of_calls": "share of calls"}
    kind_rows.html_rows = KINDS_SHOWN

    # the profile drawn as a matrix: a run per row, a label per column (registry order)
    order = {r["failure"]: (r["position"] or 1000, r["title"]) for r in profile}
    columns = sorted(order, key=lambda f: order[f])
    runs: dict[str, dict[str, Any]] = {}
    for r in profile:
        run = runs.setdefault(r["run_id"], {"run_id": r["run_id"], "cells": {},
                                            "display_name": r["display_name"],
                                            "href": questions(r)})
        run["cells"][r["failure"]] = r
    matrix = {"labels": [(f, order[f][1]) for f in columns], "runs": list(runs.values())}
    title = f"Why runs fail · {benchmark} · {mode}"
    return Page("failures.html", title,
                [HOME, (f"{benchmark} · {mode}", url("/board", benchmark=benchmark, mode=mode)),
                 ("Failures", url("/failures", benchmark=benchmark, mode=mode))],
                {"labels": labels, "efficiency": spent, "consistency": agree,
                 "kinds": kind_rows},
                {"benchmark": benchmark, "mode": mode, "glossary": wh.memo("failures"),
                 "matrix": matrix},
                {"glossary": wh.memo("failures")})


def result_chips(wh: ServeWarehouse, run_id: str, qid: str, run_index: int
                 ) -> dict[str, Any]:
    """The failure labels of one result, for its chips: per call {(msg_idx, call_idx):
    [(label, kind)]}, and the labels of the whole result [(label, kind, calls)] (none for a
    clean one)."""
    calls: dict[tuple[int, int], list[tuple[str, str | None]]] = {}
    result: list[tuple[str, str | None, int | None]] = []
    for row in wh.serve_rows("trajectory_failures", run=run_id, qid=qid, run_index=run_index):
        if row["msg_idx"] is None:
            result.append((row["failure"], row["detail"], row["n_calls"]))
        else:
            calls.setdefault((row["msg_idx"], row["call_idx"]), []).append(
                (row["failure"], row["detail"]))
    return {"calls": calls, "result": result,
            "words": {r["failure"]: r["description"] for r in wh.memo("failures")}}


def loss_table(wh: ServeWarehouse, run_a: str, run_b: str) -> Table:
    """The compare page's questions A lost and B won, grouped by A's failure labels (the
    query of `etl compare --by-failure`)."""
    rows = wh.comparison_failures(run_a, run_b).to_pylist()
    table = Table.of(rows)
    table.html_columns = ["title", "n_questions", "points", "top_qid"]
    table.headers = {"title": "A's label", "n_questions": "questions A lost",
                     "points": "points B won", "top_qid": "the largest"}
    table.note = ("The questions B scored higher on, by the failure labels A's attempts at "
                  "them carry (a question counts under each of its labels).")
    table.html_rows = None
    return table
