"""`etl serve` in a real headless Chromium (Debian's /usr/bin/chromium driven by Playwright;
no downloaded browser): click from the leaderboard to a heat-map cell to a question to a
trajectory and check what is shown against the database; planted markup in a message, a
tool result, a model name and a qid shows as text and runs nothing. Screenshots are kept
under build/serve-screenshots/ (git-ignored); the test output names the directory."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import duckdb
import pytest

from tests.serving import CHROMIUM, follow, running_server
from tests.serving import query_rows as _rows
from tests.waiting import wait_for

pytest.importorskip("starlette")
sync_api = pytest.importorskip("playwright.sync_api")

SHOTS = Path(__file__).resolve().parents[2] / "build" / "serve-screenshots"
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")

PAYLOAD = '<script>alert("{0}")</script><img src=x onerror=alert("{0}")>'




class Watched:
    """A page whose dialogs (alert), page errors and console messages are recorded."""

    def __init__(self, browser: object) -> None:
        self.page = browser.new_page(viewport={"width": 1100, "height": 800})
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.console: list[str] = []
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.console.append(m.text))


def _shot(page: object, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


class ScreenshotNotice(UserWarning):
    """Names where the screenshots went, in the test summary."""


def test_click_from_leaderboard_to_trajectory(browser: object, demo_db: Path) -> None:
    warnings.warn(ScreenshotNotice(f"etl serve screenshots: {SHOTS}"), stacklevel=1)
    run = _rows(demo_db, """
        SELECT t.run_id, t.task, t.score, l.display_name
        FROM leaderboard_by_task t JOIN leaderboard l USING (run_id)
        JOIN results r ON r.run_id = t.run_id AND r.task = t.task
        WHERE t.benchmark = 'agent_ehr_bench' AND t.mode = 'agentic' AND r.n_tool_calls > 1
        ORDER BY t.run_id, t.task LIMIT 1""")[0]
    w = Watched(browser)
    with running_server(demo_db) as base:
        page = w.page
        page.goto(base + "/")
        _shot(page, "1-home")
        page.click("#boards a[href*='benchmark=agent_ehr_bench'][href*='mode=agentic']")
        assert page.locator("h1").inner_text() == "agent_ehr_bench · agentic"
        board = _rows(demo_db, "SELECT model FROM leaderboard_ranked WHERE benchmark = "
                               "'agent_ehr_bench' AND mode = 'agentic'")
        assert page.locator("#board tbody tr").count() == len(board)
        _shot(page, "2-board")
        page.click("#heatmap-link")
        cell = page.locator(f"#heatmap a[data-run='{run['run_id']}'][data-task='{run['task']}']")
        # the cell shows the score x 100 rounded; its title the score to 3 decimals
        assert cell.inner_text() == f"{run['score'] * 100:.0f}"
        assert f"{run['score']:.3f} over" in cell.get_attribute("title")
        _shot(page, "3-heatmap")
        follow(page, cell)
        questions = _rows(demo_db, "SELECT qid FROM results WHERE run_id = ? AND task = ? "
                                   "GROUP BY qid ORDER BY qid", [run["run_id"], run["task"]])
        rows = page.locator("#questions tbody tr")
        assert rows.count() == len(questions)
        _shot(page, "4-questions")
        first = rows.first.locator("td").first.inner_text()
        assert first == questions[0]["qid"]
        follow(page, rows.first.locator("td").first.locator("a"))
        # The question page: the gold and every model's answer.
        gold = _rows(demo_db, "SELECT gold FROM results WHERE qid = ? AND run_id = ?",
                     [first, run["run_id"]])[0]["gold"]
        assert page.locator("pre.gold").inner_text() == gold
        answers = _rows(demo_db, "SELECT r.run_id FROM results r JOIN runs u USING (run_id) "
                                 "WHERE r.qid = ? AND r.benchmark = 'agent_ehr_bench' "
                                 "AND NOT coalesce(u.is_archived, false)", [first])
        assert page.locator("#answers tbody tr").count() == len(answers)
        _shot(page, "5-question")
        link = page.locator("#answers tbody tr", has_text=run["display_name"]).first
        follow(page, link.locator("a[href^='/trajectory']").first)
        # The trajectory: every message, every tool call, the answer against the gold.
        result = _rows(demo_db, "SELECT prediction, gold, run_index FROM results WHERE "
                                "run_id = ? AND qid = ? ORDER BY run_index LIMIT 1",
                       [run["run_id"], first])[0]
        n_messages = _rows(demo_db, "SELECT count(*) AS n FROM messages WHERE run_id = ? AND "
                                    "qid = ? AND run_index = ?",
                           [run["run_id"], first, result["run_index"]])[0]["n"]
        calls = _rows(demo_db, "SELECT tool, is_error FROM tool_calls WHERE run_id = ? AND "
                               "qid = ? AND run_index = ? ORDER BY msg_idx, call_idx",
                      [run["run_id"], first, result["run_index"]])
        assert page.locator("#messages > li").count() == n_messages
        assert page.locator("#messages .call").count() == len(calls)
        assert page.locator("#messages .call.is-error").count() == sum(
            bool(c["is_error"]) for c in calls)
        assert page.locator("#prediction").inner_text() == (result["prediction"] or "")
        assert page.locator("#gold").inner_text() == (result["gold"] or "")
        assert page.locator("#model").inner_text() == run["display_name"]
        _shot(page, "6-trajectory")
        # j goes to the next result of the run in (task_group, task, qid, run_index) order.
        order = _rows(demo_db, "SELECT qid, run_index, task_group, task FROM results "
                               "WHERE run_id = ?", [run["run_id"]])
        order.sort(key=lambda r: (r["task_group"] or "", r["task"] or "", r["qid"],
                                  r["run_index"]))
        here = [(r["qid"], r["run_index"]) for r in order].index((first, result["run_index"]))
        nxt = order[here + 1]
        page.keyboard.press("j")
        page.wait_for_url(lambda u: "qid=" in u and nxt["qid"] in u)
        page.keyboard.press("k")
        page.wait_for_url(lambda u: first in u)
    assert not w.dialogs and not w.errors


def _plant(demo_db: Path, db: Path) -> dict:
    """A copy of the warehouse with markup in a model name, a qid, a message and a tool
    result of one agentic trajectory."""
    shutil.copy(demo_db, db)
    with duckdb.connect(str(db)) as con:
        run_id, model, qid, run_index, task = con.execute("""
            SELECT r.run_id, r.model, r.qid, r.run_index, r.task FROM results r
            JOIN leaderboard l USING (run_id)
            WHERE l.benchmark = 'agent_ehr_bench' AND r.n_tool_calls > 0
            ORDER BY r.run_id, r.qid LIMIT 1""").fetchone()
        bad_qid = PAYLOAD.format("qid")
        for table in ("results", "messages", "tool_calls", "question_scores", "images"):
            con.execute(f"UPDATE {table} SET qid = ? WHERE run_id = ? AND qid = ?",
                        [bad_qid, run_id, qid])
        con.execute("UPDATE models SET display_name = ? WHERE model = ?",
                    [PAYLOAD.format("model"), model])
        con.execute("UPDATE messages SET content = ? WHERE run_id = ? AND qid = ? AND "
                    "msg_idx = (SELECT min(msg_idx) FROM messages WHERE run_id = ? AND qid = ? "
                    "AND role = 'assistant')",
                    [PAYLOAD.format("message"), run_id, bad_qid, run_id, bad_qid])
        con.execute("UPDATE messages SET content = ? WHERE run_id = ? AND qid = ? AND "
                    "msg_idx = (SELECT min(msg_idx) FROM messages WHERE run_id = ? AND qid = ? "
                    "AND role = 'tool')",
                    [PAYLOAD.format("tool"), run_id, bad_qid, run_id, bad_qid])
    return {"run": run_id, "qid": bad_qid, "index": run_index, "task": task}


def test_planted_markup_is_text_and_runs_nothing(browser: object, demo_db: Path,
                                                  tmp_path: Path) -> None:
    from urllib.parse import urlencode

    db = tmp_path / "planted.duckdb"
    planted = _plant(demo_db, db)
    w = Watched(browser)
    pages = {
        "board": "/board?benchmark=agent_ehr_bench&mode=agentic",
        "heatmap": "/heatmap?benchmark=agent_ehr_bench&mode=agentic",
        "questions": "/questions?" + urlencode({"run": planted["run"], "task": planted["task"]}),
        "question": "/question?" + urlencode({"benchmark": "agent_ehr_bench",
                                              "qid": planted["qid"]}),
        "trajectory": "/trajectory?" + urlencode({k: planted[k] for k in ("run", "qid",
                                                                          "index")}),
        "sql": "/sql?" + urlencode({"q": f"SELECT '{PAYLOAD.format('sql')}' AS x"}),
        "search": "/search?" + urlencode({"q": PAYLOAD.format("tool")}),
    }
    with running_server(db) as base:
        for name, path in pages.items():
            w.page.goto(base + path)
            w.page.wait_for_load_state("load")
            if name == "sql":  # a GET fills the box; the browser's POST (its Origin) runs it
                with w.page.expect_navigation():
                    w.page.click("form button:not([formaction])")
            text = w.page.locator("main").inner_text()
            expected = {"board": ["model"], "heatmap": ["model"], "questions": ["qid"],
                        "question": ["qid", "model"],
                        "trajectory": ["qid", "model", "message", "tool"],
                        "sql": ["sql"], "search": ["tool"]}[name]
            for label in expected:
                assert PAYLOAD.format(label) in text, (name, label)
            # No element made of the planted markup: no script or img of it in the DOM.
            assert w.page.locator("main script").count() == 0, name
            assert w.page.locator("main img[src='x']").count() == 0, name
            _shot(w.page, f"planted-{name}")
        # The trajectory's tool result starts collapsed when long; the short one is shown.
    assert w.dialogs == [] and w.errors == []
    # Negative control: the same listener on a page without the app's escaping and CSP
    # catches both planted scripts.
    control = Watched(browser)
    control.page.set_content(PAYLOAD.format("control"))

    def both_alerts() -> bool:  # Playwright delivers the dialogs while it waits
        control.page.wait_for_timeout(20)
        return len(control.dialogs) >= 2

    wait_for(both_alerts, "the control page's two planted scripts ran", every=0)
    assert control.dialogs == ["control", "control"]


def test_readme_screenshot_of_the_trajectory_viewer(browser: object, demo_db: Path) -> None:
    """The picture in the README: a trajectory with tool calls of the demo tree."""
    from urllib.parse import urlencode

    row = _rows(demo_db, """
        SELECT r.run_id, r.qid, r.run_index FROM results r JOIN leaderboard l USING (run_id)
        WHERE l.benchmark = 'agent_ehr_bench' AND r.n_tool_calls BETWEEN 2 AND 4
        ORDER BY r.run_id, r.qid LIMIT 1""")[0]
    w = Watched(browser)
    with running_server(demo_db) as base:
        w.page.set_viewport_size({"width": 1000, "height": 1150})
        w.page.goto(base + "/trajectory?" + urlencode({"run": row["run_id"], "qid": row["qid"],
                                                       "index": row["run_index"]}))
        SHOTS.mkdir(parents=True, exist_ok=True)
        w.page.screenshot(path=str(SHOTS / "trajectory-viewer.png"))
    assert (SHOTS / "trajectory-viewer.png").stat().st_size > 10_000
    assert not w.errors
