"""The report's honest parts (etl/report.py): rank-group bands, coverage and scorer on every
leaderboard chart, paired per-group / per-task deltas with intervals, the error-class chart;
every drawn number checked against the views of the demo warehouse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from etl.report import write_report
from tests.html_pages import Elements, parse
from tests.html_pages import close_to as _close
from tests.html_pages import warehouse_rows as _rows


@pytest.fixture(scope="module")
def doc(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Elements:
    out = tmp_path_factory.mktemp("report") / "report.html"
    write_report(demo_db, out)
    return parse(out.read_text(encoding="utf-8"))


def _by_chart(doc: Elements, css_class: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for svg, attributes in doc.classed(css_class):
        out.setdefault(svg, []).append(attributes)
    return out


def test_rank_bands_coverage_and_scorer(doc: Elements, demo_db: Path) -> None:
    ranked = _rows(demo_db, "SELECT benchmark, mode, model, rank_group, n_questions, "
                            "expected, low_coverage, score_source, scored_elsewhere "
                            "FROM leaderboard_ranked")
    bands = _by_chart(doc, "rank-band")
    for (benchmark, mode) in {(r["benchmark"], r["mode"]) for r in ranked}:
        chart = f"leaderboard-{benchmark.replace('_', '-')}-{mode}"
        groups = sorted({r["rank_group"] for r in ranked
                         if (r["benchmark"], r["mode"]) == (benchmark, mode)})
        assert [int(b["data-rank-group"]) for b in bands[chart]] == groups, chart
    text = "".join(doc.text)
    for row in ranked:  # n behind the score / expected by the split
        assert f"n {row['n_questions']}/{row['expected']}" in text
    # a scored-only run carries its mark
    elsewhere = [r for r in ranked if r["scored_elsewhere"]]
    assert elsewhere and len(doc.classed("scored-elsewhere")) == len(elsewhere)
    partial = [r for r in ranked if r["low_coverage"]]
    assert partial, "the demo tree plants runs with missing questions"
    assert len(doc.classed("low-coverage")) == len(partial)
    boards = {(r["benchmark"], r["mode"]) for r in ranked}
    mixed = 0
    for (benchmark, mode) in boards:
        scorers = sorted({r["score_source"] for r in ranked
                          if (r["benchmark"], r["mode"]) == (benchmark, mode)})
        # every scorer of the board is named (in words, its key in parentheses)
        assert all(f"({s})" in text for s in scorers), (benchmark, mode)
        mixed += len(scorers) > 1
        # a run scored by another scorer than most of its board carries the mark
        board = [r for r in ranked if (r["benchmark"], r["mode"]) == (benchmark, mode)]
        counts = {s: sum(r["score_source"] == s for r in board) for s in scorers}
        usual = sorted(counts, key=lambda s: (-counts[s], s))[0]
        others = {r["model"] for r in board if r["score_source"] != usual}
        chart = f"leaderboard-{benchmark.replace('_', '-')}-{mode}"
        assert sum(1 for svg, _ in doc.classed("other-scorer") if svg == chart) == len(others)
    # the demo plants mm boards whose runs were scored by different scorers: each says so
    assert mixed > 0
    assert text.count("This board mixes scorers") == mixed


def test_paired_deltas_with_intervals(doc: Elements, demo_db: Path) -> None:
    want = _rows(demo_db, "SELECT benchmark, model, scope, task_group, task, n_shared, delta, "
                          "ci_low, ci_high, small_n FROM mode_delta_paired "
                          "WHERE scope IN ('group', 'task')")
    drawn = doc.classed("paired-delta")
    assert len(drawn) == len(want) > 0
    index = {(svg, a["data-model"], a["data-cell"]): a for svg, a in drawn}
    for row in want:
        kind = "paired-delta" if row["scope"] == "group" else "paired-delta-task"
        chart = f"{kind}-{row['benchmark'].replace('_', '-')}"
        cell = row["task"] if row["scope"] == "task" else row["task_group"]
        got = index[(chart, row["model"], cell)]
        assert _close(got["data-delta"], row["delta"]), row
        assert _close(got["data-ci-low"], row["ci_low"]), row
        assert _close(got["data-ci-high"], row["ci_high"]), row
        assert int(got["data-n"]) == row["n_shared"]
        assert ("small-n" in got["class"].split()) == row["small_n"]


def test_error_class_chart(doc: Elements, demo_db: Path) -> None:
    want = _rows(demo_db, "SELECT c.model, c.mode, c.benchmark, c.error_class, "
                          "sum(c.n_results) AS n FROM error_class_counts AS c JOIN leaderboard "
                          "AS l USING (run_id) GROUP BY ALL")
    drawn = [a for _, a in doc.classed("error-segment")]
    assert len(drawn) == len(want)
    assert sum(int(a["data-count"]) for a in drawn) == sum(r["n"] for r in want)
    infra = sum(r["n"] for r in want if r["error_class"] == "infrastructure")
    assert infra > 0
    assert sum(int(a["data-count"]) for a in drawn if a["data-class"] == "infrastructure") == infra
