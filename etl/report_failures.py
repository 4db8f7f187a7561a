"""The report's section "Why runs fail" (etl/report.py): per board, the points each run lost
on the results carrying each failure label (failure_profile), what each run spent and its
cost frontier (efficiency, efficiency_frontier), and the labels in words (table failures).
Its rows are the explorer's memos (sql/queries/serve_memo_failure_profile.sql,
serve_memo_efficiency.sql, serve_memo_failures.sql): the same numbers on both surfaces."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from etl.charts import esc, fmt_score


def _one(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _boards(rows: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    out: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        out[(row["benchmark"], row["mode"])].append(row)
    return dict(sorted(out.items()))


def _matrix(rows: list[dict[str, Any]]) -> str:
    """A run per row, a label per column (registry order): points lost (share)."""
    labels = sorted({(r["position"] or 1000, r["failure"], r["title"]) for r in rows})
    runs: dict[str, dict[str, Any]] = {}
    for row in rows:
        runs.setdefault(row["run_id"], {"name": row["display_name"], "cells": {}})
        runs[row["run_id"]]["cells"][row["failure"]] = row
    head = "<th>model</th>" + "".join(f"<th>{esc(title)}</th>" for _, _, title in labels)
    body = []
    for run in runs.values():
        cells = []
        for _, failure, _ in labels:
            c = run["cells"].get(failure)
            cells.append("<td></td>" if c is None else
                         f'<td class="num">{_one(c["points_lost"])} '
                         f'<small>({100 * c["share"]:.0f}%)</small></td>')
        body.append(f"<tr><td>{esc(run['name'])}</td>{''.join(cells)}</tr>")
    return (f'<div class="scroll"><table class="failures"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def _spent(rows: list[dict[str, Any]]) -> str:
    head = ("<th>model</th><th>score</th><th>calls / question</th><th>steps / question</th>"
            "<th>characters read / question</th><th>calls / point</th><th>frontier</th>")
    body = "".join(
        f"<tr><td>{esc(r['display_name'])}</td><td class=\"num\">{fmt_score(r['score'])}</td>"
        f"<td class=\"num\">{_one(r['calls_per_question'])}</td>"
        f"<td class=\"num\">{_one(r['steps_per_question'])}</td>"
        f"<td class=\"num\">{_one(r['chars_per_question'])}</td>"
        f"<td class=\"num\">{_one(r['calls_per_point'])}</td>"
        f"<td>{'✓' if r['on_frontier'] else ''}</td></tr>" for r in rows)
    return f'<table class="efficiency"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def failures_section(profile: list[dict[str, Any]], efficiency: list[dict[str, Any]],
                     glossary: list[dict[str, Any]]) -> str:
    """The section's HTML."""
    parts = ['<section id="failures"><h2>Why runs fail</h2>',
             '<p class="note">Every tool call and result carries deterministic failure labels, '
             "read from the texts the writer's tools return (docs/ANALYSIS.md). Each cell: the "
             "points a run lost on the results carrying the label (questions' worth of score, "
             "as the board counts questions) and the share of its results carrying it; a "
             "result with several labels counts under each. Records carry no token counts, "
             "so the cost is calls, steps and characters of tool results read; frontier: no "
             "other run of the board scores as high with fewer calls per attempt.</p>"]
    if not profile:
        parts.append('<p class="empty">No failure labels: no leaderboard run with results.'
                     "</p></section>")
        return "".join(parts)
    spent = _boards(efficiency)
    for board, rows in _boards(profile).items():
        benchmark, mode = board
        parts.append(f'<h3><span class="mode {esc(mode)}">{esc(mode)}</span> '
                     f"{esc(benchmark)}</h3>{_matrix(rows)}")
        if board in spent:
            parts.append(_spent(spent[board]))
    parts.append('<dl class="labels">' + "".join(
        f"<dt>{esc(f['title'])} <code>{esc(f['failure'])}</code></dt>"
        f"<dd>{esc(f['description'])}</dd>" for f in glossary) + "</dl></section>")
    return "".join(parts)
