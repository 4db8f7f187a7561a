"""The uncertainty numbers where people read them, on the demo warehouse: the notebook API
(etl.open) exposes the views' columns, the report draws the interval clustered by patient
and puts the minimum detectable effect and the "not detectable" mark beside each paired
difference, `etl compare` and the explorer say the same; every value checked against the
views."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest

import etl
from etl.comparison import NOT_DETECTABLE, detectability
from tests.conftest import run_etl
from tests.html_pages import Elements, parse
from tests.html_pages import close_to as _close
from tests.serving import get
from tests.serving import query_rows as _rows

CLUSTERED = ["benchmark", "mode", "model", "run_id", "n_questions", "n_clusters", "score",
             "se_naive", "se_clustered", "design_effect", "ci_low", "ci_high",
             "single_cluster"]
PAIRED = ["correlation", "sd_diff", "se_diff_clustered", "mde_80", "n_needed"]
RELIABILITY = ["benchmark", "mode", "model", "run_id", "k", "n_questions", "pass_hat_k",
               "worst_of_k", "flip_rate"]
CHANGES = ["benchmark", "mode", "model", "ingest_before", "ingest_after", "score_before",
           "score_after", "diff", "rank_before", "rank_after", "n_questions_before",
           "n_questions_after"]


def test_api_exposes_the_columns(demo_db: Path) -> None:
    with etl.open(demo_db, frames="arrow") as wh:
        clustered = wh.clustered()
        assert clustered.column_names == CLUSTERED
        assert clustered.num_rows == len(_rows(demo_db, "SELECT * FROM leaderboard"))
        assert {"task_group", "task"} <= set(wh.clustered(by="task").column_names)
        assert "task_group" in wh.clustered("ehr_bench", by="group").column_names
        for by in ("model", "group", "task"):
            assert set(PAIRED) <= set(wh.model_comparison(by=by).column_names), by
        assert "p_bh" in wh.model_comparison(by="task").column_names
        reliability = wh.reliability()
        assert reliability.column_names == RELIABILITY and reliability.num_rows > 0
        assert wh.changes().column_names[:len(CHANGES)] == CHANGES
        assert wh.changes().num_rows == 0  # one ingest: nothing to compare with
        summary = wh.comparison("claude_opus_4_6", "kimi_k2_5", "ehr_bench", "agentic").summary
    want = _rows(demo_db, "SELECT * FROM model_comparison WHERE benchmark = 'ehr_bench' AND "
                          "mode = 'agentic' AND model_a = 'claude_opus_4_6' "
                          "AND model_b = 'kimi_k2_5'")[0]
    for name in [*PAIRED, "n_clusters", "not_detectable"]:
        assert summary[name] == want[name], name


def test_compare_prints_the_mde(demo_db: Path) -> None:
    (want,) = _rows(demo_db, "SELECT run_a, run_b, mde_80, n_needed, not_detectable "
                             "FROM model_comparison WHERE benchmark = 'ehr_bench' AND "
                             "mode = 'agentic' AND not_detectable ORDER BY run_a, run_b LIMIT 1")
    out = run_etl("compare", want["run_a"], want["run_b"], "--db", str(demo_db), "--wide")
    assert f"MDE {want['mde_80']:.3f}, {NOT_DETECTABLE} (n needed {want['n_needed']})" in (
        out.stdout)


@pytest.fixture(scope="module")
def report(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Elements:
    out = tmp_path_factory.mktemp("report") / "report.html"
    run_etl("report", "--db", str(demo_db), "--out", str(out))
    return parse(out.read_text(encoding="utf-8"))


def test_report_names_the_clustered_whisker(report: Elements) -> None:
    text = " ".join(report.text)
    assert "whiskers: the 95% CI, clustered by patient" in text
    # every bar's tooltip names both intervals (a run whose questions are all one patient's
    # says it has no clustered one)
    tips = [t for t in report.text if "95% CI, naive [" in t]
    assert len(tips) == len(report.classed("bar")) > 0
    assert all("95% CI, clustered by patient [" in t or "no clustered interval" in t
               for t in tips)


def test_report_puts_the_mde_beside_each_paired_difference(report: Elements,
                                                           demo_db: Path) -> None:
    want = _rows(demo_db, "SELECT model, scope, task_group, task, mde_80, n_needed, "
                          "not_detectable FROM mode_delta_paired WHERE scope IN ('group', 'task')")
    drawn = {(a["data-model"], a["data-cell"], "paired-delta-task" in svg): a
             for svg, a in report.classed("paired-delta")}
    assert len(drawn) == len(want) > 0
    for row in want:
        cell = row["task"] if row["scope"] == "task" else row["task_group"]
        got = drawn[(row["model"], cell, row["scope"] == "task")]
        assert _close(got["data-mde"], row["mde_80"]), row
        assert ("not-detectable" in (got["class"] or "").split()) == bool(row["not_detectable"])
    # the label beside the value (empty for a cell of one shared question: no MDE)
    labels = [detectability(r) for r in want if r["mde_80"] is not None]
    assert labels and all(label in report.text for label in labels)
    assert sum(NOT_DETECTABLE in t for t in report.text) >= sum(
        bool(r["not_detectable"]) for r in want) * 2  # the label and the tooltip


def test_explorer_board_shows_the_clustered_interval(server: str, demo_db: Path) -> None:
    want = {r["run_id"]: r for r in _rows(
        demo_db, "SELECT * FROM leaderboard_clustered WHERE benchmark = 'ehr_bench' "
                 "AND mode = 'agentic'")}
    status, _, body = get(f"{server}/board?benchmark=ehr_bench&mode=agentic&format=json")
    assert status == 200
    shown = {r["run_id"]: r for r in json.loads(body)["tables"]["board"]}
    assert set(shown) == set(want)
    for run, row in want.items():
        assert shown[run]["ci_low"] == pytest.approx(row["ci_low"], rel=1e-12)
        assert shown[run]["ci_high"] == pytest.approx(row["ci_high"], rel=1e-12)
    status, _, body = get(f"{server}/board?benchmark=ehr_bench&mode=agentic")
    page = body.decode()
    # the table names both intervals; the words beside them follow the design effect
    heads = re.findall(r"<th>([^<]*)</th>", page.split('id="board"', 1)[1].split("</thead>")[0])
    assert "95% CI, clustered by patient" in heads and "95% CI, naive" in heads
    effects = [r["design_effect"] for r in want.values() if r["design_effect"] is not None]
    words = page.split('id="interval-words">', 1)[1].split("</p>", 1)[0]
    assert ("wider than the naive one" in words) == all(e > 1 for e in effects)
    assert ("a little narrower" in words) == all(e <= 1 for e in effects)


def test_explorer_compare_shows_the_mde(server: str, demo_db: Path) -> None:
    want = _rows(demo_db, "SELECT run_a, run_b, mde_80, n_needed, not_detectable "
                          "FROM model_comparison WHERE benchmark = 'ehr_bench' AND "
                          "mode = 'agentic' ORDER BY not_detectable, run_a, run_b")
    assert {r["not_detectable"] for r in want} == {False, True}, "both kinds in the demo"
    for row in (want[0], want[-1]):
        status, _, body = get(f"{server}/compare?" + urlencode({"a": row["run_a"],
                                                                "b": row["run_b"]}))
        assert status == 200
        power = body.decode().split('id="power"', 1)[1].split("</p>", 1)[0]
        assert detectability(row) in power
        assert ('class="not-detectable"' in power) == row["not_detectable"]
