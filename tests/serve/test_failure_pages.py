"""The explorer's failures page and chips (etl/serve/failures.py) over HTTP: the page's
tables are the views' rows for its board, the chips of a trajectory and a side-by-side page
are the labels of its result and calls, the compare page lists A's losses by label, and a
board without labels is a 404."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.serving import get, running_server
from tests.serving import query_rows as _rows

pytest.importorskip("starlette")

GLM = "ehr_bench/agentic/full1800/glm_4_7"
OPUS = "ehr_bench/agentic/full1800/claude_opus_4_6"


@pytest.fixture(scope="module")
def server(demo_db: Path) -> str:
    with running_server(demo_db) as base:
        yield base


def test_the_failures_page_shows_the_boards_views(server: str, demo_db: Path) -> None:
    status, _, body = get(f"{server}/failures?benchmark=ehr_bench&mode=agentic&format=json")
    assert status == 200
    tables = json.loads(body)["tables"]
    profile = _rows(demo_db, "SELECT run_id, failure, n_results, points_lost FROM "
                             "failure_profile WHERE all_tasks AND benchmark = 'ehr_bench' AND "
                             "mode = 'agentic'")
    assert sorted((r["run_id"], r["failure"], r["n_results"]) for r in tables["labels"]) == \
        sorted((r["run_id"], r["failure"], r["n_results"]) for r in profile)
    frontier = _rows(demo_db, "SELECT run_id, on_frontier FROM efficiency_frontier WHERE "
                              "benchmark = 'ehr_bench' AND mode = 'agentic'")
    assert {r["run_id"]: r["on_frontier"] for r in tables["efficiency"]} == {
        r["run_id"]: r["on_frontier"] for r in frontier}
    html = get(f"{server}/failures?benchmark=ehr_bench&mode=agentic")[2].decode()
    assert 'id="failure-matrix"' in html and 'id="failure-words"' in html
    words = _rows(demo_db, "SELECT title FROM failures")
    assert all(w["title"] in html for w in words)
    board = get(f"{server}/board?benchmark=ehr_bench&mode=agentic")[2].decode()
    assert 'href="/failures?benchmark=ehr_bench&amp;mode=agentic"' in board
    assert get(f"{server}/failures?benchmark=nope&mode=agentic")[0] == 404


def _chips(html: str) -> list[str]:
    return re.findall(r'class="chip chip-([a-z_]+)"', html)


def test_a_trajectory_shows_its_labels_as_chips(server: str, demo_db: Path) -> None:
    qid, run_index = _rows(demo_db, "SELECT qid, run_index FROM call_failures WHERE run_id = ? "
                                    "ORDER BY qid LIMIT 1", [GLM])[0].values()
    query = urlencode({"run": GLM, "qid": qid, "index": run_index})
    html = get(f"{server}/trajectory?{query}")[2].decode()
    calls = _rows(demo_db, "SELECT failure FROM call_failures WHERE run_id = ? AND qid = ? AND "
                           "run_index = ?", [GLM, qid, run_index])
    results = _rows(demo_db, "SELECT failure FROM result_failures WHERE run_id = ? AND qid = ? "
                             "AND run_index = ?", [GLM, qid, run_index])
    assert sorted(_chips(html)) == sorted([c["failure"] for c in calls]
                                          + [r["failure"] for r in results])
    clean = _rows(demo_db, "SELECT qid, run_index FROM result_failures WHERE run_id = ? AND "
                           "failure = 'none' ORDER BY qid LIMIT 1", [OPUS])[0]
    query = urlencode({"run": OPUS, "qid": clean["qid"], "index": clean["run_index"]})
    assert _chips(get(f"{server}/trajectory?{query}")[2].decode()) == ["none"]


def test_side_by_side_and_compare_show_the_labels(server: str, demo_db: Path) -> None:
    qid = _rows(demo_db, "SELECT qid FROM call_failures WHERE run_id = ? ORDER BY qid LIMIT 1",
                [GLM])[0]["qid"]
    html = get(f"{server}/diff?{urlencode({'qid': qid, 'a': GLM, 'b': OPUS})}")[2].decode()
    labels = [r["failure"] for r in _rows(demo_db, "SELECT failure FROM result_failures WHERE "
                                                   "qid = ? AND run_id IN (?, ?)",
                                          [qid, GLM, OPUS])]
    assert set(labels) <= set(_chips(html)) and labels
    query = urlencode({"a": GLM, "b": OPUS, "benchmark": "ehr_bench", "mode": "agentic",
                       "format": "json"})
    tables = json.loads(get(f"{server}/compare?{query}")[2])["tables"]
    lost = [q for q in tables["questions"] if q["outcome"] == "b_better"]
    assert tables["losses"] and max(r["n_questions"] for r in tables["losses"]) <= len(lost)
    assert all(r["n_lost"] == len(lost) for r in tables["losses"])
