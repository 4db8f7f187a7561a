"""The explorer as a person sees it, measured in Debian's Chromium at 1400x900 on EHR-Bench at
its real width (45 tasks, 8 models: tests/explorer_tree.py): heat-map rows at most 48 px
tall and the grid within the window, model names and numbers never split across lines, a
board with its chart, search finding a planted phrase in a tool result and leading to its
message with the phrase marked, and two trajectories side by side with the first differing
step marked. Every expectation comes from the database, not from the page's code.

Screenshots go to build/explorer-screenshots/; with UPDATE_DOCS_SCREENSHOTS=1 the ones the
docs show are copied to docs/ (docs/SERVE.md)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from tests.explorer_tree import EIGHTH_MODEL, PLANTED, PLANTED_DEEP
from tests.serving import CHROMIUM, follow, running_server
from tests.serving import query_rows as _rows

pytest.importorskip("starlette")
sync_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "explorer-screenshots"
DOCS = ROOT / "docs"
VIEWPORT = {"width": 1400, "height": 900}
# The screenshots docs/SERVE.md and the README show (the others stay in build/).
DOC_SHOTS = {"board", "heatmap", "search", "trajectory-marked", "diff", "compare"}
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")

# How many lines an inline element's text takes: its boxes (one or more per line: an
# ellipsis makes fragments too) on distinct vertical positions.
LINES = "e => new Set([...e.getClientRects()].map(r => Math.round(r.top))).size"
# Every number and name cell of the page's tables whose text is split across lines.
SPLIT_CELLS = """() => [...document.querySelectorAll(
    'table.data td.num > *, table.data td.name > *')]
    .filter(e => e.textContent.trim()
            && new Set([...e.getClientRects()].map(r => Math.round(r.top))).size > 1)
    .map(e => e.textContent)"""


def _shot(page: object, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    if os.environ.get("UPDATE_DOCS_SCREENSHOTS") == "1" and name in DOC_SHOTS:
        shutil.copy(path, DOCS / f"explorer-{name}.png")


@pytest.fixture(scope="module")
def wide(wide_db: tuple[Path, dict]) -> Iterator[tuple[str, Path, dict]]:
    db, planted = wide_db
    with running_server(db) as base:
        yield base, db, planted


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    page = browser.new_page(viewport=VIEWPORT)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    page.close()
    assert errors == []


def test_heat_map_of_45_tasks_and_8_models_fits_the_window(wide: tuple, page: object) -> None:
    base, db, _ = wide
    cells = _rows(db, "SELECT run_id, task_group, task, score, n_questions "
                      "FROM leaderboard_by_task WHERE benchmark = 'ehr_bench' AND "
                      "mode = 'agentic'")
    tasks = sorted({(c["task_group"], c["task"]) for c in cells})
    runs = _rows(db, "SELECT run_id, display_name FROM leaderboard_ranked WHERE "
                     "benchmark = 'ehr_bench' AND mode = 'agentic' ORDER BY score DESC, run_id")
    assert len(tasks) == 45 and len(runs) == 8
    page.goto(base + "/heatmap?benchmark=ehr_bench&mode=agentic")
    _shot(page, "heatmap")
    # columns by task group, then task; rows best first
    headers = page.locator("#heatmap th.task")
    assert headers.count() == 45
    assert [headers.nth(i).get_attribute("data-task") for i in range(45)] == [
        t for _, t in tasks]
    rows = page.locator("#heatmap tbody tr")
    assert rows.count() == 8
    names = [rows.nth(i).locator("th.model").get_attribute("title") for i in range(8)]
    assert names == [r["display_name"] for r in runs]
    for i in range(8):
        box = rows.nth(i).bounding_box()
        assert box["height"] <= 48, (names[i], box)
        # the model name on one line, whole in its title
        assert rows.nth(i).locator("th.model a").evaluate(LINES) == 1, names[i]
    assert EIGHTH_MODEL in names  # the long name (34 characters) is one of them
    # the whole grid within the 1400 px window: no sideways scrolling needed
    grid = page.locator("#heatmap").bounding_box()
    assert grid["x"] >= 0 and grid["x"] + grid["width"] <= VIEWPORT["width"], grid
    # fixed-width cells holding the score x 100, the score to 3 decimals on hover
    widths = {round(page.locator("#heatmap td").nth(i).bounding_box()["width"])
              for i in range(0, 45 * 8, 7)}
    assert max(widths) - min(widths) <= 2, widths
    for cell in cells[:: max(1, len(cells) // 20)]:
        link = page.locator(f"#heatmap a[data-run='{cell['run_id']}']"
                            f"[data-task='{cell['task']}']")
        assert link.inner_text() == f"{cell['score'] * 100:.0f}"
        assert f"{cell['score']:.3f} over {cell['n_questions']} questions" in (
            link.get_attribute("title"))
    # the model column stays in view when the grid scrolls sideways (narrow window)
    page.set_viewport_size({"width": 900, "height": 900})
    page.locator(".heat-wrap").evaluate("e => { e.scrollLeft = 600; }")
    wrap_x = page.locator(".heat-wrap").bounding_box()["x"]
    assert abs(rows.nth(0).locator("th.model").bounding_box()["x"] - wrap_x) <= 1
    page.set_viewport_size(VIEWPORT)
    # a cell leads to that model's questions of that task, a model to all its questions
    cell = cells[0]
    follow(page, page.locator(
        f"#heatmap a[data-run='{cell['run_id']}'][data-task='{cell['task']}']"))
    query = parse_qs(urlparse(page.url).query)
    assert urlparse(page.url).path == "/questions"
    assert query == {"run": [cell["run_id"]], "task": [cell["task"]]}
    page.go_back()
    follow(page, page.locator("#heatmap th.model a").first)
    assert parse_qs(urlparse(page.url).query) == {"run": [runs[0]["run_id"]]}


def test_board_draws_its_chart_and_a_short_table(wide: tuple, page: object) -> None:
    base, db, _ = wide
    # the whisker and the table's interval: the 95% interval clustered by patient
    board = _rows(db, "SELECT r.run_id, r.display_name, r.score, c.ci_low, c.ci_high, "
                      "r.rank_group, r.present, r.expected FROM leaderboard_ranked AS r "
                      "LEFT JOIN leaderboard_clustered AS c ON c.run_id = r.run_id "
                      "WHERE r.benchmark = 'ehr_bench' AND r.mode = 'agentic' "
                      "ORDER BY r.rank, r.run_id")
    page.goto(base + "/board?benchmark=ehr_bench&mode=agentic")
    _shot(page, "board")
    chart = page.locator("svg.leaderboard-chart")
    assert chart.count() == 1 and chart.bounding_box()["height"] > 100
    bars = chart.locator("rect.bar")
    assert bars.count() == len(board)
    # bar length proportional to the score (400 px of plot = 1.0)
    for i, row in enumerate(board):
        width = float(bars.nth(i).get_attribute("width"))
        assert width == pytest.approx(row["score"] * 400, abs=0.1)
    assert chart.locator("path.ci").count() == sum(r["ci_low"] is not None for r in board)
    assert chart.locator("rect.rank-band").count() == len(
        {r["rank_group"] for r in board})  # consecutive by construction: rank order
    # the short table: 3 decimals, the interval, questions present / expected
    table = page.locator("#board tbody tr")
    assert table.count() == len(board)
    heads = page.locator("#board thead th").all_inner_texts()
    assert len(heads) <= 10 and "run_id" not in heads and "benchmark" not in heads
    score_col, ci_col, n_col = (heads.index(h) for h in (
        "score", "95% CI, clustered by patient", "present / expected"))
    for i, row in enumerate(board):
        texts = table.nth(i).locator("td").all_inner_texts()
        assert texts[score_col] == f"{row['score']:.3f}"
        assert texts[ci_col] == ("" if row["ci_low"] is None else
                                 f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]")
        assert texts[n_col] == f"{row['present']} / {row['expected']}"
    assert page.evaluate(SPLIT_CELLS) == []
    # the scorer said in words, and the full rows in the JSON
    assert "authors' text scorer" in page.locator("#scorer-words").inner_text()
    data = json.loads(page.request.get(
        base + "/board?benchmark=ehr_bench&mode=agentic&format=json").text())
    assert {"run_id", "benchmark", "low_coverage", "scorer", "ci_naive_low"} <= set(
        data["tables"]["board"][0])
    # a bar leads to the run's questions
    follow(page, chart.locator("a").nth(0))
    assert parse_qs(urlparse(page.url).query) == {"run": [board[0]["run_id"]]}


def test_no_number_or_name_is_split_across_lines(wide: tuple, demo_db: Path,
                                                 page: object) -> None:
    base, db, _ = wide
    traj = _rows(db, "SELECT run_id, qid, run_index FROM results WHERE n_tool_calls > 2 "
                     "ORDER BY run_id, qid LIMIT 1")[0]
    paths = {
        "home": "/",
        "questions": "/questions?" + urlencode({"run": traj["run_id"]}),
        "question": "/question?" + urlencode({"benchmark": "ehr_bench", "qid": traj["qid"]}),
        "trajectory": "/trajectory?" + urlencode({"run": traj["run_id"], "qid": traj["qid"],
                                                  "index": traj["run_index"]}),
        "compare": "/compare?" + urlencode({"benchmark": "ehr_bench", "mode": "agentic",
                                            "a": "claude_opus_4_6", "b": EIGHTH_MODEL}),
        "board-oneshot": "/board?benchmark=ehr_bench&mode=oneshot",
        "shared": "/board?benchmark=ehr_bench&mode=agentic&shared=1",
    }
    for name, path in paths.items():
        page.goto(base + path)
        assert page.locator("table.data").count() > 0, name
        assert page.evaluate(SPLIT_CELLS) == [], name
        if name in ("compare", "question", "trajectory"):
            _shot(page, name)
    archived = _rows(demo_db, "SELECT archived_run_id FROM archive_lineage "
                              "ORDER BY n_archived_results DESC LIMIT 1")[0]["archived_run_id"]
    with running_server(demo_db) as demo:
        for name, path in {"lineage": "/lineage", "rejects": "/rejects",
                           "lineage-diff": "/lineage/diff?" + urlencode(
                               {"archived": archived}),
                           "mm-board": "/board?benchmark=mm_bench&mode=agentic"}.items():
            page.goto(demo + path)
            assert page.evaluate(SPLIT_CELLS) == [], name
            if name == "lineage":
                _shot(page, name)


def test_search_finds_a_phrase_planted_in_a_tool_result(wide: tuple, page: object) -> None:
    base, db, planted = wide
    near = planted["near"]
    role = _rows(db, "SELECT role FROM messages WHERE run_id = ? AND qid = ? AND "
                     "run_index = ? AND msg_idx = ?",
                 [near["run_id"], near["qid"], near["run_index"], near["msg_idx"]])
    assert role == [{"role": "tool"}]
    page.goto(base + "/")
    box = page.locator("nav.top input[name=q]")
    box.fill(PLANTED.upper())  # any case finds it
    box.press("Enter")
    page.wait_for_url("**/search?*")
    _shot(page, "search")
    hits = page.locator("#hits > li")
    assert hits.count() == 1
    assert page.locator("#hits mark").inner_text() == PLANTED  # as written, not as typed
    link = hits.first.locator("a.hit-link")
    assert "tool result" in link.inner_text() and EIGHTH_MODEL in link.inner_text()
    follow(page, link)
    url = urlparse(page.url)
    assert url.path == "/trajectory" and url.fragment == f"m{near['msg_idx']}"
    assert parse_qs(url.query)["qid"] == [near["qid"]]
    message = page.locator(f"#m{near['msg_idx']}")
    assert message.locator("mark").all_inner_texts() == [PLANTED]
    assert message.is_visible() and message.evaluate(
        "e => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight; }")
    _shot(page, "trajectory-marked")
    # A phrase past the first 10,000 characters of a long tool result: the link opens the
    # page of /message that holds it, the phrase marked there.
    deep = planted["deep"]
    page.goto(base + "/search?" + urlencode({"q": PLANTED_DEEP, "role": "tool"}))
    assert page.locator("#hits > li").count() == 1
    follow(page, page.locator("#hits a.hit-link"))
    url = urlparse(page.url)
    assert url.path == "/message"
    query = parse_qs(url.query)
    assert query["msg"] == [str(deep["msg_idx"])] and query["page"] == ["1"]
    assert page.locator("#page-text mark").all_inner_texts() == [PLANTED_DEEP]
    # nothing else holds it: a miss says so
    page.goto(base + "/search?" + urlencode({"q": PLANTED + " nowhere"}))
    assert page.locator("#no-match").is_visible()


def _canonical(arguments: str | None) -> str:
    try:
        return json.dumps(json.loads(arguments or ""), sort_keys=True)
    except ValueError:
        return (arguments or "").strip()


def test_diff_puts_two_trajectories_side_by_side(wide: tuple, page: object) -> None:
    base, db, _ = wide
    a_run = "ehr_bench/agentic/full1800/claude_opus_4_6"
    b_run = "ehr_bench/agentic/full1800/kimi_k2_5"
    calls = _rows(db, "SELECT run_id, qid, tool, arguments, is_error FROM tool_calls "
                      "WHERE run_id IN (?, ?) AND run_index = 1 ORDER BY msg_idx, call_idx",
                  [a_run, b_run])
    steps: dict[tuple[str, str], list[tuple]] = {}
    for c in calls:
        steps.setdefault((c["run_id"], c["qid"]), []).append(
            (c["tool"], _canonical(c["arguments"]), bool(c["is_error"])))
    # a question both answered with tools whose trajectories share a first step, then part
    qid, a_steps, b_steps = next(
        (q, steps[(a_run, q)], steps[(b_run, q)]) for (r, q) in sorted(steps)
        if r == a_run and (b_run, q) in steps and steps[(a_run, q)][0] == steps[(b_run, q)][0]
        and steps[(a_run, q)] != steps[(b_run, q)])
    prefix = 0
    while (prefix < min(len(a_steps), len(b_steps))
           and a_steps[prefix] == b_steps[prefix]):
        prefix += 1
    # reached from the question page, as a reader would
    page.goto(base + "/question?" + urlencode({"benchmark": "ehr_bench", "qid": qid}))
    form = page.locator("#diff-form")
    form.locator("select[name=a]").select_option(a_run)
    form.locator("select[name=b]").select_option(b_run)
    follow(page, form.locator("button"))
    page.wait_for_url("**/diff?*")
    _shot(page, "diff")
    names = _rows(db, "SELECT run_id, display_name FROM leaderboard_ranked "
                      "WHERE run_id IN (?, ?)", [a_run, b_run])
    shown = {r["run_id"]: r["display_name"] for r in names}
    assert shown[a_run] in page.locator("#side-a h2").inner_text()
    assert shown[b_run] in page.locator("#side-b h2").inner_text()
    scores = {r["run_id"]: r["score"] for r in _rows(
        db, "SELECT run_id, score FROM leaderboard_result_scores WHERE qid = ? AND "
            "run_id IN (?, ?) AND run_index = 1", [qid, a_run, b_run])}
    assert page.locator("#side-a .score").inner_text().startswith(f"{scores[a_run]:.3f}")
    assert page.locator("#side-b .score").inner_text().startswith(f"{scores[b_run]:.3f}")
    # every step of each side, in order, and the first differing one marked
    rows = page.locator("#steps tbody tr")
    tools_a = [t for t in rows.locator("td:nth-child(2) strong.tool").all_inner_texts()]
    tools_b = [t for t in rows.locator("td:nth-child(3) strong.tool").all_inner_texts()]
    assert tools_a == [s[0] for s in a_steps] and tools_b == [s[0] for s in b_steps]
    marked = page.locator("#steps tr.first-difference")
    assert marked.count() == 1
    assert rows.nth(prefix).get_attribute("id") == "first-difference"
    for i in range(prefix):
        assert "row-same" in rows.nth(i).get_attribute("class")
    assert page.evaluate(SPLIT_CELLS) == []


def test_compare_summary_chart_and_filters_as_links(wide: tuple, page: object) -> None:
    base, db, _ = wide
    a_run = "ehr_bench/agentic/full1800/claude_opus_4_6"
    b_run = f"ehr_bench/agentic/full1800/{EIGHTH_MODEL}"
    groups = _rows(db, "SELECT task_group, wins_a, wins_b, ties FROM model_comparison_by_group "
                       "WHERE run_a = ? AND run_b = ? ORDER BY task_group", [a_run, b_run])
    page.goto(base + "/compare?" + urlencode({"a": a_run, "b": b_run}))
    chart = page.locator("#compare-summary svg")
    drawn = {g.get_attribute("data-group"): g for g in
             chart.locator("g.comparison-group").all()}
    for row in groups:
        g = drawn[row["task_group"]]
        assert (int(g.get_attribute("data-wins-a")), int(g.get_attribute("data-ties")),
                int(g.get_attribute("data-wins-b"))) == (row["wins_a"], row["ties"],
                                                         row["wins_b"])
    links = page.locator("#filters a")
    b_better = page.locator("#filters a", has_text="B better")
    assert links.count() >= 5
    expected = sum(r["wins_b"] for r in groups)
    assert f"({expected})" in b_better.inner_text()
    follow(page, b_better)
    assert page.locator("#diff tbody tr").count() == expected
    assert set(page.locator("#diff tbody td:nth-child(5)").all_inner_texts()) <= {"b_better"}
    # each row leads to the two trajectories side by side
    follow(page, page.locator("#diff tbody tr").first.locator("a", has_text="side by side"))
    assert urlparse(page.url).path == "/diff"
