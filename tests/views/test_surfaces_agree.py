"""One truth on every surface: on generated trees (tests/views/surface_trees.py: runs missing
questions, errors and incomplete results, several attempts, questions of one patient and of
no known one, a board of mixed scorers, a scored-only run), for every board, every scorer it
can be shown with and every level (overall, group, task), the explorer's JSON,
`etl leaderboard --format json`, the notebook API and the report carry the numbers of the
view board_cells (n, score, both intervals), to 1e-12, and no row more or less.

The report carries the leaderboards (each run's default scorer) at every level and every
other scorer's boards overall; the other surfaces every board at every level.

The view's own numbers are proven against independent computations elsewhere
(tests/views/test_leaderboard.py, tests/views/test_uncertainty.py); here it is the reference
each surface must repeat. `make test` draws three trees (each costs an ingest, a server and
every surface: seconds), enough to meet each shape the strategy plants; `make fuzz` draws
sixty."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import duckdb
import pytest
from click.testing import CliRunner
from hypothesis import given, settings

import etl
from etl.cli import cli
from etl.report import load_report_data, render_report
from tests.budgets import SLOW_OK, examples
from tests.serving import get, running_server
from tests.views.surface_trees import TreeSpec, surface_trees, write_tree

pytest.importorskip("starlette")

TOL = 1e-12
NUMBERS = ("n_questions", "score", "ci_low", "ci_high", "ci_naive_low", "ci_naive_high")
LEVELS = ("overall", "group", "task")

Key = tuple[str, str, str, str, str | None, str | None, str]  # board, scorer, level, cell, run


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(float(a) - float(b)) <= TOL


def view_cells(db: Path) -> dict[Key, dict[str, Any]]:
    """Every cell of board_cells over all questions: (benchmark, mode, board scorer, level,
    task group, task, run) -> its numbers."""
    with duckdb.connect(str(db), read_only=True) as con:
        cursor = con.execute(
            "SELECT benchmark, mode, board_scorer, level, task_group, task, run_id, "
            f"{', '.join(NUMBERS)} FROM board_cells WHERE question_set = 'all'")
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
    return {(r["benchmark"], r["mode"], r["board_scorer"], r["level"],
             r["task_group"] if r["level"] != "overall" else None,
             r["task"] if r["level"] == "task" else None, r["run_id"]): r for r in rows}


def compare(surface: str, shown: dict[Key, dict[str, Any]],
            want: dict[Key, dict[str, Any]]) -> None:
    """The surface shows exactly the wanted cells, each with the view's numbers."""
    assert set(shown) == set(want), (
        f"{surface}: cells the view lacks {sorted(set(shown) - set(want))[:5]}, cells it "
        f"leaves out {sorted(set(want) - set(shown))[:5]}")
    for key, row in want.items():
        for name in NUMBERS:
            assert _same(shown[key].get(name), row[name]), (surface, key, name,
                                                             shown[key].get(name), row[name])


def _key(row: dict[str, Any], board: str, level: str) -> Key:
    return (row["benchmark"], row["mode"], board, level,
            row.get("task_group") if level != "overall" else None,
            row.get("task") if level == "task" else None, row["run_id"])


# ------------------------------------------------------------------------- the surfaces


def explorer_cells(base: str, boards: set[tuple[str, str, str]]) -> dict[Key, dict]:
    shown: dict[Key, dict] = {}
    for benchmark, mode, board in boards:
        params = {"benchmark": benchmark, "mode": mode, "format": "json"}
        if board != "default":
            params["scorer"] = board
        status, _, body = get(f"{base}/board?{urlencode(params)}")
        assert status == 200, (params, body[:300])
        page = json.loads(body)
        for row in page["tables"]["board"]:
            shown[_key(row, board, "overall")] = row
        for row in page["tables"]["groups"]:
            shown[_key(row, board, "group")] = row
        status, _, body = get(f"{base}/heatmap?{urlencode(params)}")
        assert status == 200, (params, body[:300])
        for row in json.loads(body)["tables"]["cells"]:
            shown[_key(row, board, "task")] = row
    return shown


def cli_cells(db: Path, scorers: set[str]) -> dict[Key, dict]:
    shown: dict[Key, dict] = {}
    for board in scorers:
        for level, by in (("overall", []), ("group", ["--by", "group"]),
                          ("task", ["--by", "task"])):
            args = ["leaderboard", "--db", str(db), "--format", "json", *by]
            if board != "default":
                args += ["--scorer", board]
            result = CliRunner().invoke(cli, args)
            assert result.exit_code == 0, result.output
            for row in json.loads(result.output):
                shown[_key(row, board, level)] = row
    return shown


def api_cells(db: Path, scorers: set[str]) -> dict[Key, dict]:
    shown: dict[Key, dict] = {}
    with etl.open(db, frames="arrow") as wh:
        for board in scorers:
            for level, by in (("overall", "model"), ("group", "group"), ("task", "task")):
                table = wh.leaderboard(by=by, scorer=None if board == "default" else board)
                for row in table.to_pylist():
                    shown[_key(row, board, level)] = row
    return shown


class _DataRows(HTMLParser):
    """The report's exact numbers: the data attributes of its bars, heat-map cells and the
    rows of its cell tables."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        for kind in ("bar", "cell", "cell-row"):
            if kind in classes and tag in ("rect", "tr"):
                self.found.append((kind, a))


def _number(text: str) -> float | None:
    return None if text in ("", "None") else float(text)


def report_cells(db: Path) -> dict[Key, dict]:
    data = load_report_data(db)
    parser = _DataRows()
    parser.feed(render_report(data))
    boards = {(r["run_id"]): (r["benchmark"], r["mode"]) for r in data.leaderboard}
    boards.update({r["run_id"]: (r["benchmark"], r["mode"]) for r in data.scorer_boards})
    groups = {(r["run_id"], r["task"]): r["task_group"] for r in data.cells
              if r["level"] == "task"}
    shown: dict[Key, dict] = {}
    for kind, a in parser.found:
        if "data-run-id" not in a:  # a heat-map cell of a task the run has no question of
            continue
        run = a["data-run-id"]
        benchmark, mode = boards[run]
        numbers = {name: _number(a.get(f"data-{name.replace('_', '-')}", ""))
                   for name in NUMBERS}
        if kind == "bar":  # a leaderboard's bar
            level, board, group, task = "overall", "default", None, None
        elif kind == "cell":  # a heat-map cell
            task = a["data-task"]
            level, board, group = "task", "default", groups[(run, task)]
        else:  # a row of a cell table: a group of a leaderboard, or another scorer's board
            board = a["data-board-scorer"]
            group = a.get("data-task-group") or None
            level = "group" if group is not None else "overall"
            task = None
        shown[(benchmark, mode, board, level, group, task, run)] = numbers
    return shown


# ------------------------------------------------------------------------- the property


def check_tree(root: Path, db: Path) -> None:
    subprocess.run([sys.executable, "-m", "etl.cli", "ingest", str(root), "--db", str(db),
                    "--quiet"], check=True, capture_output=True)
    want = view_cells(db)
    boards = {(b, m, s) for b, m, s, *_ in want}
    scorers = {s for _, _, s in boards}
    # the shapes the trees are drawn for reach the view (else this proves nothing)
    assert any(k[2] == "default" for k in want) and len(scorers) >= 3
    with running_server(db) as base:
        compare("explorer", explorer_cells(base, boards), want)
    compare("etl leaderboard", cli_cells(db, scorers), want)
    compare("etl.open()", api_cells(db, scorers), want)
    in_report = {k: v for k, v in want.items() if k[2] == "default" or k[3] == "overall"}
    compare("etl report", report_cells(db), in_report)


# Each example is a whole tree through every surface (an ingest, a server, every board at
# every level): a few seconds of CPU, so three in make test, sixty in make fuzz.
@settings(max_examples=examples(3, 60), deadline=None, suppress_health_check=SLOW_OK)
@given(surface_trees())
def test_every_surface_shows_the_views_numbers(spec: TreeSpec) -> None:
    work = Path(tempfile.mkdtemp(prefix="etl-surfaces-"))
    try:
        write_tree(work / "tree", spec)
        check_tree(work / "tree", work / "warehouse.duckdb")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_the_demo_tree_shows_the_views_numbers_everywhere(demo_db: Path, tmp_path: Path
                                                           ) -> None:
    # the demo tree (damage, archives, every benchmark) through the same checks
    db = tmp_path / "warehouse.duckdb"
    shutil.copy(demo_db, db)
    want = view_cells(db)
    boards = {(b, m, s) for b, m, s, *_ in want}
    scorers = {s for _, _, s in boards}
    with running_server(db) as base:
        compare("explorer", explorer_cells(base, boards), want)
    compare("etl leaderboard", cli_cells(db, scorers), want)
    compare("etl.open()", api_cells(db, scorers), want)
    compare("etl report", report_cells(db),
            {k: v for k, v in want.items() if k[2] == "default" or k[3] == "overall"})
    assert re.search(r"scored/", " ".join(k[6] for k in want))  # the scored-only run is there
