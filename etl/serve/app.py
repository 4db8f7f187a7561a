"""`etl serve`: a read-only local web explorer of the warehouse, from the leaderboards down to
every trajectory.

Every page has a stable URL whose parameters are in the query string (run ids hold slashes),
and is also served as JSON (`?format=json`: every table of the page) and, where it shows a
table, as CSV (`?format=csv`, the page's main table; `&table=NAME` for another one).

Everything a model wrote is untrusted text: templates autoescape, and the only markup not
written by a template is the SVG of the charts (etl/charts.py, shared with `etl report`),
which escapes every value it draws (the planted-markup browser test covers the board);
links are built here from fixed paths and url-encoded values, a searched phrase is marked by
cutting the text into pieces the template escapes, and every response carries a
Content-Security-Policy without inline script or style, so even an escaping mistake could
not run a script. The only script is static/app.js (keyboard navigation)."""

from __future__ import annotations

import base64
import binascii
import csv
import io
import math
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import anyio
import anyio.to_thread
import duckdb
import orjson
from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from etl.api import OUTCOMES, WarehouseError, wanted_outcomes
from etl.board_history import change_lines
from etl.charts import comparison_chart, leaderboard_chart, shorten
from etl.comparison import detectability
from etl.connection import WarehouseUnavailable
from etl.errors import LISTED_AT_MOST, UnknownName
from etl.glossary import (
    DEFAULT_INTERVAL,
    NAIVE_INTERVAL,
    board_marks,
    interval_words,
    mixed_scorers_note,
    scorer_description,
    scorer_name,
)
from etl.query import QueryRefused
from etl.search import ROLES, SearchError, SearchQuery, highlight
from etl.serve.failures import loss_table, page_failures, result_chips
from etl.serve.gate import GateAnswer, GateLimits, SqlGate
from etl.serve.live import (
    DEFAULT_BOARD,
    LiveWarehouse,
    ServeWarehouse,
    out_of_memory_message,
)
from etl.serve.pages import (
    HOME,
    NotFound,
    Page,
    Table,
    fmt_value,
    readable_json,
    trajectory_url,
    url,
)
from etl.serve.paper import page_paper
from etl.serve.steps import align_steps, answer_items

HERE = Path(__file__).parent
PAGE_CHARS = 10_000  # one page of a long message or tool result
COLLAPSE_CHARS = 1_500  # longer texts start collapsed
SQL_MAX_ROWS = GateLimits.max_rows
SQL_MAX_BYTES = GateLimits.max_bytes
MAX_SQL_BYTES = 1 << 20  # the text of one posted query
REJECTS_PAGE = 500
# Image types a browser renders without running anything (no SVG).
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    # same-origin, not no-referrer: under no-referrer a browser posts a form with
    # "Origin: null", and the SQL page checks the origin of what is posted to it.
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


def score_class(value: Any) -> str:
    """A CSS class for a heat-map cell (inline styles are refused by the CSP)."""
    if not isinstance(value, int | float) or math.isnan(value):
        return "heat-none"
    return f"heat-{max(0, min(10, round(float(value) * 10)))}"


def has_match(text: str | None, phrase: str | None, match_case: bool = False) -> bool:
    """True when the searched phrase occurs in text (a collapsed text holding it opens)."""
    return any(hit for _, hit in highlight(text, phrase, match_case)) if phrase else False


def make_env() -> Environment:
    env = Environment(loader=FileSystemLoader(str(HERE / "templates")), autoescape=True)
    env.filters["fmt"] = fmt_value
    env.globals.update(url=url, trajectory_url=trajectory_url, score_class=score_class,
                       highlight=highlight, has_match=has_match, scorer_name=scorer_name,
                       answer_items=answer_items, readable_json=readable_json,
                       DEFAULT_INTERVAL=DEFAULT_INTERVAL,
                       NAIVE_INTERVAL=NAIVE_INTERVAL,
                       COLLAPSE_CHARS=COLLAPSE_CHARS, PAGE_CHARS=PAGE_CHARS)
    return env


def _json_default(value: Any) -> Any:
    return str(value)


# A cell a spreadsheet would run as a formula starts with one of these (OWASP, "CSV
# Injection"), also after blanks and line breaks (" =1+1", "\n=1+1": spreadsheets skip
# them): such a text cell gets a leading single quote, which the spreadsheet shows as text.
# Numbers are written as numbers (a negative one is not a formula).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A value as a CSV cell: None empty, a text that a spreadsheet would take for a formula
    neutralised, anything else as is."""
    if value is None:
        return ""
    if isinstance(value, str) and (value.startswith(FORMULA_STARTS)
                                   or value.lstrip().startswith(FORMULA_STARTS)):
        return "'" + value
    return value


def _csv(table: Table) -> str:
    out = io.StringIO()
    # CRLF ends a row (RFC 4180): the writer then quotes every cell holding a CR or an LF,
    # which with a bare LF it left unquoted for CR (a reader splits the row there).
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([csv_cell(c) for c in table.columns])
    for row in table.rows:
        writer.writerow([csv_cell(row.get(c)) for c in table.columns])
    return out.getvalue()


class BadRequest(Exception):
    """A parameter the page cannot use (answered 400, with every security header)."""


# The largest number a page parameter may hold: a row offset or a page number of any
# warehouse fits, and DuckDB binds it as a BIGINT.
MAX_PARAMETER = 10**15


def parse_count(raw: str | None, name: str) -> int | None:
    """A page parameter that counts (a row offset, a page, an index): ASCII digits only, at
    most MAX_PARAMETER; None when absent or empty. Raises BadRequest otherwise."""
    if raw is None or raw == "":
        return None
    text = raw.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 16 or int(text) > MAX_PARAMETER:
        shown = raw if len(raw) <= 40 else raw[:40] + "..."
        raise BadRequest(f"{name} must be a whole number from 0 to {MAX_PARAMETER}, "
                         f"not {shown!r}")
    return int(text)


def _int(request: Request, name: str, default: int | None = None) -> int | None:
    value = parse_count(request.query_params.get(name), name)
    return default if value is None else value


def _required(request: Request, *names: str) -> list[str]:
    values = []
    for name in names:
        value = request.query_params.get(name)
        if not value:
            raise NotFound(f"missing parameter {name!r}")
        values.append(value)
    return values


def _phrase(request: Request) -> tuple[str | None, bool]:
    """The searched phrase a page highlights (?q=, ?case=1 to match case), if any."""
    q = (request.query_params.get("q") or "").strip() or None
    return q, request.query_params.get("case") in ("1", "true", "on")


# -- pages -------------------------------------------------------------------------------
def page_home(wh: ServeWarehouse, request: Request) -> Page:
    counts: dict[tuple[str, str], dict[str, Any]] = {}
    for row in wh.board_rows():
        board = counts.setdefault((row["benchmark"], row["mode"]), {
            "benchmark": row["benchmark"], "mode": row["mode"], "n_runs": 0,
            "max_questions": 0})
        board["n_runs"] += 1
        board["max_questions"] = max(board["max_questions"], row["n_questions"] or 0)
    boards = list(counts.values())
    changes = wh.memo("changes")
    return Page("home.html", "Leaderboards", [HOME], {
        "boards": Table.of(boards,
                           benchmark=lambda r: url("/board", benchmark=r["benchmark"],
                                                   mode=r["mode"]),
                           mode=lambda r: url("/heatmap", benchmark=r["benchmark"],
                                              mode=r["mode"]))},
                # one line per board that moved since the previous ingest, as etl ingest says
                {"changes": [line.strip() for line in change_lines(changes)]},
                {"changes": changes})


def _board_title(benchmark: str, mode: str) -> str:
    return f"{benchmark} · {mode}"


def _known(kind: str, value: str, valid: Iterable[str], link: Callable[[str], str]) -> None:
    """NotFound naming the closest valid values (as the command line names them,
    etl/errors.py UnknownName) and linking each, when value is not one of valid."""
    valid = sorted(set(valid))
    if value not in valid:
        error = UnknownName(kind, value, valid)
        shown = error.suggestions or valid[:LISTED_AT_MOST]
        raise NotFound(str(error), [(s, link(s)) for s in shown])


def _checked_board(wh: ServeWarehouse, request: Request, benchmark: str, mode: str,
                   scorer: str | None, route: str) -> None:
    """NotFound with the closest names when the board (benchmark, mode, scorer) does not
    exist; the links keep the other parameters of the request."""
    here = dict(request.query_params)
    boards = {(r["benchmark"], r["mode"]) for r in wh.board_rows()}
    _known("benchmark", benchmark, {b for b, _ in boards},
           lambda v: url(route, **{**here, "benchmark": v}))
    _known("mode", mode, {m for b, m in boards if b == benchmark},
           lambda v: url(route, **{**here, "mode": v}))
    if scorer is not None:
        _known("scorer", scorer, wh.board_scorers(benchmark, mode),
               lambda v: url(route, **{**here, "scorer": v}))


BOARD_HEADERS = {"rank_group": "group", "ci": DEFAULT_INTERVAL, "ci_naive": NAIVE_INTERVAL,
                 "coverage": "present / expected", "n_questions": "questions",
                 "default_score": "default score", "model": "model"}


def _interval(low: Any, high: Any) -> str | None:
    return None if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def page_board(wh: ServeWarehouse, request: Request) -> Page:
    benchmark, mode = _required(request, "benchmark", "mode")
    scorer = request.query_params.get("scorer") or None
    shared = request.query_params.get("shared") in ("1", "true", "on")
    _checked_board(wh, request, benchmark, mode, scorer, "/board")
    rows = wh.board_rows(benchmark, mode, scorer, shared)
    defaults = {r["run_id"]: r for r in wh.board_rows(benchmark, mode)}
    for row in rows:
        row["default_score"] = defaults.get(row["run_id"], {}).get("score")
    marks = board_marks(rows)
    missing = sorted(set(defaults) - {r["run_id"] for r in rows})
    said = ("each run by its default scorer" if scorer is None
            else f"every run by the {scorer_name(scorer)} ({scorer})")
    note = (f"Scored {said}"
            + ("; only the questions every run of this board has, so every score is over "
               "the same questions" if shared else "")
            + ". Rank group: runs not shown to differ from their group's first run "
              "(Holm-adjusted paired sign test; made for the default board over all "
              "questions only). Questions: n behind the score; present / expected: the "
              "run's questions against its split's.")
    if missing:
        note += (f" Not on this board ({len(missing)}): "
                 + ", ".join(defaults[r]["display_name"] for r in missing)
                 + " (no rows of this scorer).")
    chart = Markup(leaderboard_chart(
        rows, "board-chart", mode, marks, link=lambda r: url("/questions", run=r["run_id"])))
    heat = url("/heatmap", benchmark=benchmark, mode=mode, scorer=scorer,
               shared="1" if shared else None)
    table = Table.of(rows, model=lambda r: url("/questions", run=r["run_id"]),
                     run_id=lambda r: url("/questions", run=r["run_id"]))
    table.note = note
    table.html_columns = ["rank", "rank_group", "model", "score", "ci", "ci_naive",
                          "n_questions", "coverage", "scorer", "notes"]
    if scorer is not None or shared:
        table.html_columns.insert(4, "default_score")
    table.headers = BOARD_HEADERS
    table.display = {
        "model": lambda r: r.get("display_name") or r["model"],
        "ci": lambda r: _interval(r.get("ci_low"), r.get("ci_high")),
        "ci_naive": lambda r: _interval(r.get("ci_naive_low"), r.get("ci_naive_high")),
        "coverage": lambda r: f"{r.get('present')} / {r.get('expected')}",
        "scorer": lambda r: scorer_name(r.get("scorer")),
        "notes": lambda r: "; ".join(marks.get(r["run_id"], [])) or None,
    }
    groups = wh.board_cells(benchmark, mode, "group", scorer, shared)
    group_table = Table.of(groups, model=lambda r: url("/questions", run=r["run_id"]))
    group_table.html_columns = ["task_group", "rank", "model", "score", "ci", "ci_naive",
                                "n_questions"]
    group_table.headers = BOARD_HEADERS
    group_table.display = {k: table.display[k] for k in ("model", "ci", "ci_naive")}
    title = _board_title(benchmark, mode)
    return Page("board.html", title, [HOME, (title, url("/board", benchmark=benchmark,
                                                        mode=mode))],
                {"board": table, "groups": group_table},
                {"benchmark": benchmark, "mode": mode, "scorer": scorer, "shared": shared,
                 "scorers": [(s, scorer_name(s)) for s in wh.board_scorers(benchmark, mode)],
                 "heatmap_url": heat, "chart": chart, "mixed": mixed_scorers_note(rows),
                 "scorer_words": sorted({(r["scorer"], scorer_name(r["scorer"]),
                                          scorer_description(r["scorer"]))
                                         for r in rows if r.get("scorer")}),
                 "interval_words": interval_words(rows),
                 "search_url": url("/search", benchmark=benchmark, mode=mode),
                 "runs": [(r, defaults[r]["display_name"]) for r in defaults]},
                {"board_scorer": scorer or DEFAULT_BOARD,
                 "question_set": "shared" if shared else "all"})


HEAT_TASK_CHARS = 18  # longer task names are shortened in the heat map's headers


def page_heatmap(wh: ServeWarehouse, request: Request) -> Page:
    benchmark, mode = _required(request, "benchmark", "mode")
    scorer = request.query_params.get("scorer") or None
    shared = request.query_params.get("shared") in ("1", "true", "on")
    _checked_board(wh, request, benchmark, mode, scorer, "/heatmap")
    cells = wh.board_cells(benchmark, mode, "task", scorer, shared)
    if not cells:
        raise NotFound(f"no task scores for {benchmark} {mode}")
    # Columns by task group, then task; rows in board order (best first).
    tasks = sorted({(c["task_group"] or "", c["task"] or "") for c in cells})
    order = {r["run_id"]: i for i, r in enumerate(wh.board_rows(benchmark, mode, scorer,
                                                                shared))}
    runs: dict[str, str] = {}
    grid: dict[tuple[str, str], dict[str, Any]] = {}
    for cell in cells:
        runs.setdefault(cell["run_id"], cell["display_name"])
        grid[(cell["run_id"], cell["task"] or "")] = cell
    groups: list[tuple[str, int]] = []
    for group, _ in tasks:
        if groups and groups[-1][0] == group:
            groups[-1] = (group, groups[-1][1] + 1)
        else:
            groups.append((group, 1))
    columns = [{"group": group, "task": task, "label": shorten(task, HEAT_TASK_CHARS),
                "first": i == 0 or tasks[i - 1][0] != group}
               for i, (group, task) in enumerate(tasks)]
    matrix = []
    for run_id, name in sorted(runs.items(), key=lambda kv: (order.get(kv[0], len(order)),
                                                              kv[1] or "")):
        row = []
        for column in columns:
            cell = grid.get((run_id, column["task"]))
            score = cell["score"] if cell else None
            interval = (_interval(cell["ci_low"], cell["ci_high"]) if cell else None)
            row.append({**column, "cell": cell,
                        "value": "" if score is None else f"{round(score * 100):d}",
                        "title": (f"{name} · {column['group']} / {column['task']}: "
                                  + (f"{score:.3f} over {cell['n_questions']} questions, "
                                     f"{DEFAULT_INTERVAL} "
                                     f"{interval or 'none (one patient)'}"
                                     if cell else "no questions"))})
        matrix.append((run_id, name, row))
    title = _board_title(benchmark, mode)
    said = "" if scorer is None else f" by the {scorer_name(scorer)} ({scorer})"
    return Page("heatmap.html", f"Model × task: {title}{said}",
                [HOME, (title, url("/board", benchmark=benchmark, mode=mode)),
                 ("Model × task", url("/heatmap", benchmark=benchmark, mode=mode))],
                {"cells": Table.of(cells, run_id=lambda r: url("/questions", run=r["run_id"],
                                                                task=r["task"]))},
                {"columns": columns, "groups": groups, "matrix": matrix,
                 "board_url": url("/board", benchmark=benchmark, mode=mode, scorer=scorer,
                                  shared="1" if shared else None)},
                {"board_scorer": scorer or DEFAULT_BOARD,
                 "question_set": "shared" if shared else "all"})


def _run_crumbs(run: dict[str, Any]) -> list[tuple[str, str]]:
    crumbs = [HOME]
    if run.get("benchmark") and run.get("mode") and not run.get("is_archived"):
        title = f"{run['benchmark']} · {run['mode']}"
        crumbs += [(title, url("/board", benchmark=run["benchmark"], mode=run["mode"])),
                   ("Model × task", url("/heatmap", benchmark=run["benchmark"],
                                        mode=run["mode"]))]
    elif run.get("is_archived"):
        crumbs.append(("Archive lineage", "/lineage"))
    crumbs.append((run.get("display_name") or run["run_id"], url("/questions",
                                                                   run=run["run_id"])))
    return crumbs


def _run(wh: ServeWarehouse, run_id: str) -> dict[str, Any]:
    rows = wh.serve_rows("run", run=run_id)
    if not rows:
        raise NotFound(f"no run {run_id!r}")
    run = rows[0]
    board = [r for r in wh.board_rows() if r["run_id"] == run_id]
    for name in ("score", "ci_low", "ci_high", "ci_naive_low", "ci_naive_high", "scorer",
                 "rank", "rank_group", "n_questions", "scored_elsewhere", "score_file"):
        run[name] = board[0][name] if board else None
    return run


def page_questions(wh: ServeWarehouse, request: Request) -> Page:
    (run_id,) = _required(request, "run")
    task = request.query_params.get("task") or None
    _known("run", run_id, [r["run_id"] for r in wh.memo("coverage")],
           lambda v: url("/questions", run=v, task=task))
    run = _run(wh, run_id)
    rows = wh.serve_rows("run_questions", run=run_id, task=task, scorer=run["scorer"])
    if task is not None and not rows:
        every = {r["task"] for r in wh.serve_rows("run_questions", run=run_id, task=None,
                                                  scorer=run["scorer"]) if r["task"]}
        _known("task", task, every, lambda v: url("/questions", run=run_id, task=v))
    crumbs = _run_crumbs(run)
    if task:
        crumbs.append((task, url("/questions", run=run_id, task=task)))
    bench = run["benchmark"]
    table = Table.of(
        rows, qid=lambda r: url("/question", benchmark=bench, qid=r["qid"]),
        prediction=lambda r: (trajectory_url(run_id, r["qid"], r["first_run_index"])
                              if r["has_result"] else None))
    table.html_columns = ["qid", "task", "score", "status", "prediction", "gold", "n_runs",
                          "n_tool_calls"]
    table.headers = {"n_runs": "attempts", "n_tool_calls": "tool calls",
                     "prediction": "answer (first attempt)"}
    if run.get("scored_elsewhere"):
        table.note = ("Scored elsewhere: this run has no results in this tree, only the "
                      "scores its authors' scorer wrote, one row per question (the answer "
                      "is the scorer's reading of it; there is no trajectory to open).")
    return Page("questions.html", f"{run.get('display_name') or run_id}"
                + (f" · {task}" if task else ""), crumbs, {"questions": table},
                {"run": run, "task": task,
                 "score_file_url": (url("/file", path=run["score_file"])
                                    if run.get("score_file") else None)})


def page_question(wh: ServeWarehouse, request: Request) -> Page:
    (qid,) = _required(request, "qid")
    benchmark = request.query_params.get("benchmark") or None
    info = wh.serve_rows("question", benchmark=benchmark, qid=qid)
    if not info:
        benchmarks = {r["benchmark"] for r in wh.memo("coverage") if r["benchmark"]}
        if benchmark is not None:
            _known("benchmark", benchmark, benchmarks,
                   lambda v: url("/question", benchmark=v, qid=qid))
        raise NotFound(f"no question {qid!r}" + (f" in {benchmark}" if benchmark else ""))
    answers = wh.serve_rows("question_answers", benchmark=benchmark, qid=qid)
    archived = wh.serve_rows("question_archived", benchmark=benchmark, qid=qid)
    superseded = {r["archived_run_id"]: r for r in wh.memo("lineage")}
    for row in archived:
        lineage = superseded.get(row["run_id"], {})
        row["superseded_by_run_id"] = lineage.get("superseded_by_run_id")
        row["reason"] = lineage.get("reason")
    first = info[0]
    crumbs = [HOME]
    # The diff form starts on the two best answers of the first mode listed.
    pair = [r["run_id"] for r in answers if answers and r["mode"] == answers[0]["mode"]][:2]
    answers_table = Table.of(
        answers,
        prediction=lambda r: trajectory_url(r["run_id"], qid, r["run_index"]),
        display_name=lambda r: url("/questions", run=r["run_id"], task=first["task"]),
        diff=lambda r: (url("/diff", qid=qid, a=pair[0], b=r["run_id"], ib=r["run_index"])
                        if pair and r["run_id"] != pair[0] else None))
    # the split beside the model: a smoke run's answer is not the full run's
    answers_table.html_columns = ["display_name", "mode", "split", "run_index", "score",
                                  "status", "prediction_source", "prediction", "error_class",
                                  "diff"]
    answers_table.headers = {"display_name": "model", "run_index": "attempt",
                             "prediction_source": "answer from", "prediction": "answer",
                             "error_class": "error", "diff": "beside the first"}
    answers_table.display = {"diff": lambda r: "⇄" if pair and r["run_id"] != pair[0]
                             else None,
                             "error_class": lambda r: (None if r["error_class"] == "none"
                                                       else r["error_class"])}
    archived_table = Table.of(
        archived,
        prediction=lambda r: trajectory_url(r["run_id"], qid, r["run_index"]),
        archive_name=lambda r: url("/lineage/diff", archived=r["run_id"]),
        superseded_by_run_id=lambda r: (url("/questions", run=r["superseded_by_run_id"])
                                        if r["superseded_by_run_id"] else None))
    archived_table.html_columns = ["archive_name", "model", "mode", "split", "run_index",
                                   "status", "lineage_f1", "prediction",
                                   "superseded_by_run_id", "reason"]
    archived_table.headers = {"archive_name": "archive", "run_index": "attempt",
                              "lineage_f1": "set F1", "prediction": "answer",
                              "superseded_by_run_id": "superseded by"}
    here = url("/question", benchmark=benchmark, qid=qid)
    return Page("question.html", f"Question {qid}",
                crumbs + [(f"Question {qid}", here)],
                {"answers": answers_table, "archived": archived_table},
                {"info": first, "benchmark": benchmark, "qid": qid, "answers": answers,
                 "pair": pair},
                {"question": first})


def _attempt(wh: ServeWarehouse, request: Request, route: str) -> tuple[str, str, int]:
    """(run, qid, run_index) a trajectory-like page shows: the attempt ?index= names, the
    first attempt without one (or for index 0, which attempts never are: they start at 1,
    and older links said 0). NotFound with the closest names for an unknown run or qid."""
    run_id, qid = _required(request, "run", "qid")
    wanted = _int(request, "index", None)
    attempts = [r["run_index"] for r in wh.serve_rows("attempts", run=run_id, qid=qid)]
    if not attempts:
        here = dict(request.query_params)
        _known("run", run_id, [r["run_id"] for r in wh.memo("coverage")],
               lambda v: url(route, **{**here, "run": v}))
        qids = [r["qid"] for r in wh.serve_rows("run_questions", run=run_id, task=None,
                                               scorer=None)]
        _known("question", qid, qids, lambda v: url(route, run=run_id, qid=v))
        raise NotFound(f"question {qid!r} of run {run_id!r} has no result to show")
    if wanted is None or (wanted == 0 and 0 not in attempts):
        return run_id, qid, attempts[0]
    if wanted not in attempts:
        raise NotFound(f"question {qid!r} of run {run_id!r} has no attempt {wanted}; its "
                       f"attempts: {', '.join(map(str, attempts))}",
                       [(f"attempt {a}", url(route, **{**dict(request.query_params),
                                                        "index": a})) for a in attempts])
    return run_id, qid, wanted


def page_trajectory(wh: ServeWarehouse, request: Request) -> Page:
    run_id, qid, run_index = _attempt(wh, request, "/trajectory")
    key = {"run": run_id, "qid": qid, "run_index": run_index}
    result = wh.serve_rows("trajectory_result", chars=PAGE_CHARS, **key)
    if not result:
        raise NotFound(f"no result {qid!r} (attempt {run_index}) in run {run_id!r}")
    rec = result[0]
    messages = wh.serve_rows("trajectory_messages", chars=PAGE_CHARS, **key)
    images = wh.serve_rows("trajectory_images", **key)
    scores = wh.serve_rows("trajectory_scores", **key)
    around = wh.serve_rows("trajectory_neighbours", **key)
    # Each message row holds its tool calls (one query reads messages and tool_calls once).
    calls_by_msg = {m["msg_idx"]: m["calls"] for m in messages if m["calls"]}
    calls = [call for m in messages for call in m.pop("calls")]
    images_by_msg: dict[int, list[dict[str, Any]]] = {}
    for image in images:
        image["src"] = (url("/image", run=run_id, qid=qid, index=run_index,
                            msg=image["msg_idx"], block=image["block_idx"])
                        if image["kept"] and image["media_type"] in IMAGE_TYPES else None)
        images_by_msg.setdefault(image["msg_idx"], []).append(image)
    for message in messages:
        for fld in ("content", "reasoning"):
            total = message[f"{fld}_chars"] or 0
            message[f"{fld}_more"] = (
                url("/message", run=run_id, qid=qid, index=run_index,
                    msg=message["msg_idx"], field=fld, page=1,
                    q=request.query_params.get("q"), case=request.query_params.get("case"))
                if total > PAGE_CHARS else None)
    nav = around[0] if around else {}
    prev_url = (trajectory_url(run_id, nav["prev_qid"], nav["prev_run_index"])
                if nav.get("prev_qid") is not None else None)
    next_url = (trajectory_url(run_id, nav["next_qid"], nav["next_run_index"])
                if nav.get("next_qid") is not None else None)
    run = {"run_id": run_id, "benchmark": rec["benchmark"], "mode": rec["mode"],
           "display_name": rec["display_name"],
           "is_archived": _run(wh, run_id).get("is_archived")}
    crumbs = _run_crumbs(run) + [
        (rec["task"] or "task", url("/questions", run=run_id, task=rec["task"])),
        (f"{qid} #{run_index}", trajectory_url(run_id, qid, run_index))]
    q, case = _phrase(request)
    for score in scores:
        score["name"] = scorer_name(score["scorer"])
        score["what"] = scorer_description(score["scorer"])
        score["leaderboard"] = score["scorer"] == rec["score_source"]
    # JSON arguments whose printable characters were written as escapes (\u68c0) are
    # shown as the characters (escapes.py); the JSON and CSV keep them as written
    for call in calls:
        call["shown_arguments"] = readable_json(call["arguments"])
    scores_table = Table.of(scores)
    scores_table.html_columns = ["leaderboard", "name", "f1", "precision", "recall",
                                 "exact_match", "n_pred", "n_gold", "value", "raw_value", "what"]
    scores_table.headers = {"leaderboard": "on the board", "name": "scorer", "f1": "score",
                            "value": "value", "raw_value": "as written"}
    scores_table.display = {"leaderboard": lambda r: "✓" if r["leaderboard"] else None,
                            "name": lambda r: f"{r['name']} ({r['scorer']})"}
    return Page("trajectory.html", f"Trajectory {qid} · {rec['display_name']}", crumbs,
                {"messages": Table.of(messages), "tool_calls": Table.of(calls),
                 "images": Table.of(images), "scores": scores_table},
                {"rec": rec, "messages": messages, "calls_by_msg": calls_by_msg,
                 "images_by_msg": images_by_msg, "prev_url": prev_url, "next_url": next_url,
                 "nav": nav, "q": q, "case": case,
                 "question_url": url("/question", benchmark=rec["benchmark"], qid=qid),
                 "failures": result_chips(wh, run_id, qid, run_index)},
                {"result": rec, "prev": prev_url, "next": next_url})


def page_message(wh: ServeWarehouse, request: Request) -> Page:
    run_id, qid, run_index = _attempt(wh, request, "/message")
    msg_idx = _int(request, "msg", 0)
    page = max(0, _int(request, "page", 0) or 0)
    fld = "reasoning" if request.query_params.get("field") == "reasoning" else "content"
    rows = wh.serve_rows("message_page", run=run_id, qid=qid, run_index=run_index,
                         msg_idx=msg_idx, field=fld, start=page * PAGE_CHARS + 1,
                         chars=PAGE_CHARS)
    if not rows:
        raise NotFound(f"no message {msg_idx} in {qid!r} of run {run_id!r}")
    row = rows[0]
    total = row["text_chars"] or 0
    n_pages = max(1, math.ceil(total / PAGE_CHARS))
    if page >= n_pages:
        raise NotFound(f"page {page} is past the last page ({n_pages - 1})")

    def page_url(n: int) -> str | None:
        if not 0 <= n < n_pages:
            return None
        return url("/message", run=run_id, qid=qid, index=run_index, msg=msg_idx, field=fld,
                   page=n, q=request.query_params.get("q"),
                   case=request.query_params.get("case"))

    back = trajectory_url(run_id, qid, run_index)
    q, case = _phrase(request)
    return Page("message.html", f"Message {msg_idx} of {qid} ({fld}), page {page + 1}",
                [HOME, (f"{qid} #{run_index}", back),
                 (f"message {msg_idx} page {page + 1}", page_url(page) or back)],
                {}, {"row": row, "page_no": page, "n_pages": n_pages,
                     "prev_url": page_url(page - 1), "next_url": page_url(page + 1),
                     "back": back + f"#m{msg_idx}", "field": fld, "q": q, "case": case},
                {"message": row, "page": page, "n_pages": n_pages})


COMPARE_FILTERS = (("every question", None), ("disagreements", "disagreements"),
                   ("A better", "a_better"), ("B better", "b_better"), ("ties", "tie"),
                   ("only A", "only_a"), ("only B", "only_b"))


def page_compare(wh: ServeWarehouse, request: Request) -> Page:
    params = request.query_params
    a, b = params.get("a") or "", params.get("b") or ""
    benchmark = params.get("benchmark") or None
    mode = params.get("mode") or None
    mode_b = params.get("mode_b") or None
    only = params.get("only") or None
    context: dict[str, Any] = {"a": a, "b": b, "benchmark": benchmark, "mode": mode,
                               "mode_b": mode_b, "only": only, "error": None,
                               "candidates": [], "summary": None, "chart": None,
                               "filters": [], "boards": sorted({(r["benchmark"], r["mode"])
                                                                for r in wh.board_rows()})}
    tables: dict[str, Table] = {}
    data: dict[str, Any] = {}
    status = 200
    here = {"a": a, "b": b, "benchmark": benchmark, "mode": mode, "mode_b": mode_b}
    if a and b:
        try:
            wanted = wanted_outcomes(only) if only else None
            comparison = wh.comparison(a, b, benchmark, mode, None, mode_b)
        except WarehouseError as error:
            context["error"] = str(error)
            # An ambiguous name: each run it could mean, as a link that picks it and its
            # board (so that a model name on the other side means its run of that board).
            side = "b"
            try:
                wh.resolve_run(a, benchmark, mode)
            except WarehouseError:
                side = "a"
            boards = {r["run_id"]: r for r in wh.board_rows()}
            context["candidates"] = [
                (c, url("/compare", **{**here, side: c, "only": only,
                                       "benchmark": boards.get(c, {}).get("benchmark"),
                                       "mode": boards.get(c, {}).get("mode")}))
                for c in error.candidates]
            status = 400
        else:
            every = comparison.questions.to_pylist()
            rows = [r for r in every if wanted is None or r["outcome"] in wanted]
            counts = {o: sum(r["outcome"] == o for r in every) for o in OUTCOMES}
            counts["disagreements"] = counts["a_better"] + counts["b_better"]
            context["filters"] = [
                (label, key, len(every) if key is None else counts[key],
                 url("/compare", **{**here, "a": comparison.run_a, "b": comparison.run_b,
                                    "only": key}))
                for label, key in COMPARE_FILTERS]
            names = {r["run_id"]: r for r in (wh.serve_rows("run", run=comparison.run_a)
                                              + wh.serve_rows("run", run=comparison.run_b))}
            name_a = names.get(comparison.run_a, {}).get("display_name") or comparison.run_a
            name_b = names.get(comparison.run_b, {}).get("display_name") or comparison.run_b
            bench = benchmark or names.get(comparison.run_a, {}).get("benchmark")
            groups = wh.serve_rows("compare_groups", run_a=comparison.run_a,
                                   run_b=comparison.run_b)
            if groups:
                context["chart"] = Markup(comparison_chart(groups, "compare-chart", name_a,
                                                           name_b))
            # a scored-only run has no results here: no trajectory to open
            elsewhere = {r["run_id"] for r in wh.board_rows() if r["scored_elsewhere"]}
            has_a = comparison.run_a not in elsewhere
            has_b = comparison.run_b not in elsewhere
            table = Table.of(
                rows, qid=lambda r: url("/question", benchmark=bench, qid=r["qid"]),
                prediction_a=lambda r: (trajectory_url(comparison.run_a, r["qid"])
                                        if has_a and r["outcome"] != "only_b" else None),
                prediction_b=lambda r: (trajectory_url(comparison.run_b, r["qid"])
                                        if has_b and r["outcome"] != "only_a" else None),
                steps=lambda r: (url("/diff", qid=r["qid"], a=comparison.run_a,
                                     b=comparison.run_b)
                                 if has_a and has_b and r["outcome"] not in ("only_a", "only_b")
                                 else None))
            table.html_columns = ["qid", "task", "score_a", "score_b", "outcome",
                                  "prediction_a", "prediction_b", "gold", "steps"]
            table.headers = {"score_a": "score A", "score_b": "score B",
                             "prediction_a": "answer A", "prediction_b": "answer B",
                             "steps": "trajectories"}
            table.display = {"steps": lambda r: ("side by side" if has_a and has_b
                                                 and r["outcome"] not in ("only_a", "only_b")
                                                 else None)}
            tables["questions"] = table
            tables["losses"] = loss_table(wh, comparison.run_a, comparison.run_b)
            context.update(summary=comparison.summary, run_a=comparison.run_a,
                           run_b=comparison.run_b, name_a=name_a, name_b=name_b,
                           groups=groups,
                           detectability=detectability(comparison.summary or {}))
            data.update(run_a=comparison.run_a, run_b=comparison.run_b,
                        summary=comparison.summary, groups=groups)
    return Page("compare.html", "Compare two runs",
                [HOME, ("Compare", url("/compare", a=a, b=b, benchmark=benchmark, mode=mode,
                                       mode_b=mode_b, only=only))],
                tables, context, data, status)


SEARCH_PAGE = 50


def page_search(wh: ServeWarehouse, request: Request) -> Page:
    params = request.query_params
    q, case = _phrase(request)
    start = max(0, _int(request, "start", 0) or 0)
    filters = {k: params.get(k) or None for k in ("benchmark", "mode", "model", "task",
                                                  "role")}
    archived = params.get("archived") in ("1", "true", "on")
    context: dict[str, Any] = {"q": q or "", "case": case, "archived": archived, **filters,
                               "roles": ROLES, "hits": [], "error": None, "more": False,
                               "start": start, "searched": False, "n_runs": 0,
                               "boards": sorted({(r["benchmark"], r["mode"])
                                                 for r in wh.board_rows()})}
    tables: dict[str, Table] = {}
    status = 200
    if q:
        try:
            result = wh.search_page(SearchQuery(q, **filters, match_case=case,
                                                include_archived=archived,
                                                limit=SEARCH_PAGE, offset=start))
        except SearchError as error:
            context["error"] = str(error)
            status = 400
        else:
            for hit in result.hits:
                hit["href"] = hit_url(hit, q, case)
                if hit["field"] == "arguments":  # pieces of JSON text: shown unescaped
                    for piece in ("before", "matched", "after"):
                        hit[f"shown_{piece}"] = readable_json(hit[piece], piece=True)
            here = {"q": q, "case": "1" if case else None,
                    "archived": "1" if archived else None, **filters}
            table = Table.of(result.hits)
            table.html_rows = None  # the search already returns one page
            tables["hits"] = table
            context.update(hits=result.hits, more=result.more, searched=True,
                           n_runs=result.n_runs,
                           next_url=(url("/search", **here, start=start + SEARCH_PAGE)
                                     if result.more else None),
                           prev_url=(url("/search", **here, start=max(0, start - SEARCH_PAGE))
                                     if start else None))
    return Page("search.html", f"Search: {q}" if q else "Search",
                [HOME, ("Search", url("/search", q=q))], tables, context,
                {"more": context["more"], "error": context["error"]}, status)


def hit_url(hit: dict[str, Any], q: str, case: bool) -> str:
    """Where a search match is: its message in the trajectory, with the phrase marked; the
    page of /message that holds it when it lies past the first page of a long text."""
    page = (hit["match_at"] or 0) // PAGE_CHARS
    marks = {"q": q, "case": "1" if case else None}
    if hit["field"] != "arguments" and page > 0:
        return url("/message", run=hit["run_id"], qid=hit["qid"], index=hit["run_index"],
                   msg=hit["msg_idx"], field=hit["field"], page=page, **marks)
    anchor = (f"#c{hit['msg_idx']}-{hit['call_idx']}" if hit["field"] == "arguments"
              else f"#m{hit['msg_idx']}")
    return url("/trajectory", run=hit["run_id"], qid=hit["qid"], index=hit["run_index"],
               **marks) + anchor


def page_diff(wh: ServeWarehouse, request: Request) -> Page:
    qid, run_a, run_b = _required(request, "qid", "a", "b")
    # Both results and both step lists in one query each (every attempt of the two runs).
    results = wh.serve_rows("diff_results", qid=qid, run_a=run_a, run_b=run_b)
    steps = wh.serve_rows("diff_steps", qid=qid, run_a=run_a, run_b=run_b)
    sides = []
    for run_id, index_param in ((run_a, "ia"), (run_b, "ib")):
        attempts = [r for r in results if r["run_id"] == run_id]
        if not attempts:
            raise NotFound(f"no result {qid!r} in run {run_id!r}")
        run_index = _int(request, index_param, attempts[0]["run_index"])
        rec = next((r for r in attempts if r["run_index"] == run_index), None)
        if rec is None:
            raise NotFound(f"no result {qid!r} (attempt {run_index}) in run {run_id!r}")
        sides.append({"rec": rec, "url": trajectory_url(run_id, qid, run_index),
                      "failures": result_chips(wh, run_id, qid, run_index),
                      "steps": [s for s in steps if s["run_id"] == run_id
                                and s["run_index"] == run_index]})
    rows = align_steps(sides[0]["steps"], sides[1]["steps"])
    first = next((i for i, row in enumerate(rows) if row.kind != "same"), None)
    a, b = (side["rec"] for side in sides)
    title = f"{qid}: {a['display_name']} · {a['mode']} against {b['display_name']} · {b['mode']}"
    return Page("diff.html", title,
                [HOME, (f"Question {qid}", url("/question", benchmark=a["benchmark"], qid=qid)),
                 ("Side by side", url("/diff", qid=qid, a=run_a, b=run_b))],
                {"steps": Table.of([row.flat() for row in rows])},
                {"sides": sides, "rows": rows, "first": first, "qid": qid},
                {"a": a, "b": b, "first_difference": first})


LINEAGE_HEADERS = {"archive_name": "archive", "superseded_by_run_id": "superseded by",
                   "n_archived_results": "results", "n_shared": "shared", "n_fixed": "fixed",
                   "n_broke": "broke", "n_improved": "improved", "n_regressed": "regressed",
                   "n_changed": "changed", "n_same": "same", "n_only_archived": "only before",
                   "n_only_current": "only after", "match_kind": "matched by"}


def page_lineage(wh: ServeWarehouse, request: Request) -> Page:
    rows = wh.memo("lineage")
    table = Table.of(
        rows, archive_name=lambda r: url("/lineage/diff", archived=r["archived_run_id"]),
        superseded_by_run_id=lambda r: (url("/questions", run=r["superseded_by_run_id"])
                                        if r["superseded_by_run_id"] else None))
    table.html_columns = ["archive_name", "relation", "superseded_by_run_id", "match_kind",
                          "reason", "model", "mode", "n_archived_results", "n_shared",
                          "n_fixed", "n_broke", "n_improved", "n_regressed", "n_changed",
                          "n_same", "n_only_archived", "n_only_current"]
    table.headers = LINEAGE_HEADERS
    return Page("table.html", "Archive lineage", [HOME, ("Archive lineage", "/lineage")],
                {"lineage": table},
                {"intro": "Which archived run was superseded by which current run, how it "
                          "was matched, and how the answers changed, question by question "
                          "(archive_lineage). Fixed: it now succeeds and scores higher; "
                          "broke: it no longer succeeds and scores lower; improved / "
                          "regressed: the score (set F1) went up / down otherwise; changed: "
                          "another difference (a status that changed at the same score, "
                          "another answer scoring the same). Click an archive for its "
                          "questions."})


def page_lineage_diff(wh: ServeWarehouse, request: Request) -> Page:
    (archived,) = _required(request, "archived")
    rows = [r for r in wh.memo("archive_diff") if r["archived_run_id"] == archived]
    lineage = [r for r in wh.memo("lineage") if r["archived_run_id"] == archived]
    if not lineage:
        raise NotFound(f"no archived run {archived!r}")
    diff = Table.of(
        rows,
        archived_prediction=lambda r: (trajectory_url(archived, r["qid"], r["run_index"])
                                       if r["archived_status"] is not None else None),
        current_prediction=lambda r: (trajectory_url(r["current_run_id"], r["qid"],
                                                     r["run_index"])
                                      if r["current_status"] is not None else None))
    diff.html_columns = ["qid", "run_index", "task", "change", "archived_status",
                         "current_status", "archived_f1", "current_f1", "archived_prediction",
                         "current_prediction"]
    diff.headers = {"run_index": "attempt", "archived_status": "status before",
                    "current_status": "status after", "archived_f1": "F1 before",
                    "current_f1": "F1 after", "archived_prediction": "answer before",
                    "current_prediction": "answer after"}
    summary = Table.of(lineage)
    summary.html_columns = ["archive_name", "relation", "superseded_by_run_id", "match_kind",
                            "reason", "n_archived_results", "n_shared", "n_fixed",
                            "n_broke", "n_improved", "n_regressed", "n_changed", "n_same"]
    summary.headers = LINEAGE_HEADERS
    return Page("table.html", f"Archive {archived}",
                [HOME, ("Archive lineage", "/lineage"),
                 (archived, url("/lineage/diff", archived=archived))],
                {"diff": diff, "lineage": summary},
                {"intro": "Before (archived) and after (current) answers, question by "
                          "question (archive_diff); F1 is set F1 (normalized)."})


def page_rejects(wh: ServeWarehouse, request: Request) -> Page:
    path = request.query_params.get("path") or None
    offset = max(0, _int(request, "offset", 0) or 0)
    rejects = wh.serve_rows("rejects", path=path, limit=REJECTS_PAGE + 1, offset=offset)
    more = len(rejects) > REJECTS_PAGE
    rejects = rejects[:REJECTS_PAGE]
    files = wh.memo("reject_files")
    coverage = wh.memo("coverage")
    listed = Table.of(rejects, path=lambda r: url("/rejects", path=r["path"]))
    listed.html_rows = None  # already one page (REJECTS_PAGE rows from offset)
    tables = {
        "rejects": listed,
        "files": Table.of(files, path=lambda r: url("/rejects", path=r["path"])),
        "coverage": Table.of(coverage, run_id=lambda r: url("/questions", run=r["run_id"])),
    }
    return Page("table.html", "Rejects and coverage",
                [HOME, ("Rejects and coverage", url("/rejects", path=path))], tables,
                {"intro": "What was not loaded as is and why, per file and line (rejects); "
                          "files not loaded or with rejected lines; coverage of every run.",
                 "next_url": url("/rejects", path=path, offset=offset + REJECTS_PAGE)
                 if more else None})


def page_file(wh: ServeWarehouse, request: Request) -> Page:
    (path,) = _required(request, "path")
    found = wh.serve_rows("file", path=path)
    if not found:
        _known("file", path, [r["path"] for r in wh.memo("reject_files")],
               lambda v: url("/file", path=v))
        raise NotFound(f"no file {path!r} in this warehouse")
    info = found[0]
    rows = wh.serve_rows("file_rows", path=path)
    run_id = info["run_id"]
    table = Table.of(
        rows,
        qid=lambda r: (trajectory_url(run_id, r["qid"], r["run_index"]) if r["has_result"]
                       else None))
    table.html_columns = ["line_no", "row_kind", "qid", "run_index", "task", "status",
                          "scorer", "route", "f1"]
    table.headers = {"line_no": "line", "row_kind": "row", "run_index": "attempt"}
    facts = Table.of([info], run_id=lambda r: url("/questions", run=r["run_id"])
                     if r["run_id"] else None,
                     n_rejected=lambda r: url("/rejects", path=r["path"]))
    return Page("table.html", f"File {path}",
                [HOME, ("Rejects and coverage", "/rejects"), (path, url("/file", path=path))],
                {"file": facts, "rows": table},
                {"intro": "What the ingest made of this file: its kind, size and lines, "
                          "and the rows it gave (results, and the score rows read from "
                          "it), line by line; the rejected lines are on its rejects page."})


def sql_page(sql: str, answer: GateAnswer | None, note: str | None = None) -> Page:
    """The SQL page: the box holding sql, and the results of running it (answer; None: not
    run, e.g. a GET, which only fills the box)."""
    context: dict[str, Any] = {"sql": sql, "error": None, "results": [], "note": note,
                               "max_rows": SQL_MAX_ROWS}
    tables: dict[str, Table] = {}
    status = 200
    if answer is not None and answer.error is not None:
        context["error"] = answer.error
        status = answer.status
    elif answer is not None:
        for n, result in enumerate(answer.results):
            rows = [dict(zip(result.columns, row, strict=True)) for row in result.rows]
            table = Table(result.columns, rows)
            # Every fetched row on the page: a result is not paged by links (they would be
            # GETs, which do not run queries).
            table.html_rows = None
            if result.truncated:
                table.note = (f"showing the first {len(rows)} rows; more exist (the SQL page "
                              f"stops at {SQL_MAX_ROWS} rows or {SQL_MAX_BYTES >> 20} MB of text "
                              "per statement; `etl query` has no such limit)")
            tables[f"statement_{n + 1}"] = table
        context["results"] = answer.results
    return Page("sql.html", "SQL", [HOME, ("SQL", "/sql")], tables, context,
                {"sql": sql, "error": context["error"]}, status)


# -- plumbing ----------------------------------------------------------------------------
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def host_of(header: str) -> str:
    """The host name of a Host header (port and IPv6 brackets removed), lower-cased."""
    host = header.strip().lower()
    if host.startswith("["):  # [::1]:8765
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class Guard:
    """ASGI middleware, outermost: every response carries the security headers (errors and
    500s included), and a request whose Host header is not one of allowed_hosts is answered
    400 before anything runs, so a DNS-rebinding page (a name of the attacker's resolved to
    127.0.0.1) gets nothing."""

    def __init__(self, app: Any, allowed_hosts: frozenset[str]) -> None:
        self.app = app
        self.allowed_hosts = allowed_hosts

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                message = {**message, "headers": [*message.get("headers", []),
                                                  *[(k, v) for k, v in extra
                                                    if k not in present]]}
            await send(message)

        headers = dict(scope.get("headers") or [])
        host = host_of(headers.get(b"host", b"").decode("latin-1"))
        if host not in self.allowed_hosts:
            response = Response(f"unknown host {host!r}: this server answers to "
                                f"{', '.join(sorted(self.allowed_hosts))} (etl serve "
                                "--allow-host adds a name)\n", status_code=400,
                                media_type="text/plain")
            await response(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


def same_origin(request: Request) -> bool:
    """True when a POST comes from a page of this server, or from a client that is not a
    browser. A browser says where a request comes from: Sec-Fetch-Site (every current
    browser) and Origin (every POST); a request carrying neither (curl, a script) is not
    made by a web page."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = request.headers.get("origin")
    if origin is None:
        return True
    own = f"{request.url.scheme}://{request.headers.get('host', '')}".lower()
    return origin.lower() == own


def render(env: Environment, page: Page, request: Request) -> Response:
    fmt = request.query_params.get("format", "html")
    if fmt == "json":
        body = {"title": page.title, **page.data,
                "tables": {name: t.rows for name, t in page.tables.items()}}
        return Response(orjson.dumps(body, default=_json_default,
                                     option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY),
                        status_code=page.status, media_type="application/json")
    if fmt == "csv":
        if not page.tables:
            return Response("this page has no table\n", status_code=404,
                            media_type="text/plain")
        name = request.query_params.get("table") or next(iter(page.tables))
        if name not in page.tables:
            return Response(f"no table {name!r}; tables: {', '.join(page.tables)}\n",
                            status_code=404, media_type="text/plain")
        return Response(_csv(page.tables[name]), status_code=page.status,
                        media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'inline; filename="{name}.csv"'})
    formats = {"json": url(request.url.path, **{**request.query_params, "format": "json"})}
    if page.tables:
        formats["csv"] = url(request.url.path, **{**request.query_params, "format": "csv"})
    if request.method != "GET":  # links are GETs: a posted query offers its own buttons
        formats = {}
    for name, table in page.tables.items():
        param = f"start_{name}"
        raw = request.query_params.get(param, "0")
        # Not a number: the first page (a link cut short should still show something).
        start = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 16 else 0
        table.paginate(start, lambda n, param=param: url(request.url.path,
                                                         **{**request.query_params, param: n}))
    html = env.get_template(page.template).render(page=page, formats=formats, **page.context)
    return HTMLResponse(html, status_code=page.status)


def error_page(status: int, title: str, message: str,
               links: list[tuple[str, str]] | None = None) -> Page:
    """A page saying what went wrong; links: the pages the request may have meant."""
    return Page("error.html", title, [HOME], {}, {"message": message, "links": links or []},
                {"error": message, "suggestions": [href for _, href in links or []]}, status)


def create_app(db_path: str | Path, resources: dict[str, Any] | None = None,
               allowed_hosts: Iterable[str] = (), gate_limits: GateLimits | None = None
               ) -> Starlette:
    """The explorer over the warehouse at db_path (opened read-only, reopened when replaced).

    resources: bounds of the server's DuckDB connection (etl serve passes its --memory-limit
    and --threads); None keeps DuckDB's defaults, so that other read-only connections of the
    same process (tests, notebooks) can open the same file. allowed_hosts: names the server
    answers to besides the loopback ones (etl serve passes its --host and --allow-host).
    gate_limits: the bounds of a query of the SQL page (etl/serve/gate.py)."""
    db = Path(db_path)
    live = LiveWarehouse(db, resources)
    gate = SqlGate(db, gate_limits)
    env = make_env()

    def endpoint(handler: Callable[..., Page]) -> Callable:
        def run(request: Request) -> Response:
            try:
                with live.use() as wh:
                    page = handler(wh, request)
            except NotFound as missing:
                page = error_page(404, "Not found", str(missing), missing.links)
            except BadRequest as bad:
                page = error_page(400, "Bad request", str(bad))
            except duckdb.OutOfMemoryException as error:
                page = error_page(503, "Out of memory", out_of_memory_message(error, resources))
            except (WarehouseUnavailable, QueryRefused, FileNotFoundError) as error:
                page = error_page(503, "Warehouse unavailable", str(error))
            except duckdb.Error as error:  # e.g. --db names a DuckDB file of another tool
                page = error_page(503, "Warehouse unavailable",
                                  f"the database cannot be read as a warehouse of this tool: "
                                  f"{type(error).__name__}: {str(error).splitlines()[0]}")
            return render(env, page, request)
        return run

    async def sql_endpoint(request: Request) -> Response:
        """GET fills the box (from ?q=) without running; POST runs the box's SQL, when it
        comes from this server's own page."""
        if request.method == "GET":
            sql = request.query_params.get("q") or ""
            note = "Press Run to run this query." if sql.strip() else None
            return render(env, sql_page(sql, None, note), request)
        if not same_origin(request):
            return render(env, error_page(403, "Refused", "a query of the SQL page must come "
                                          "from the SQL page of this server"), request)
        body = await request.body()
        if len(body) > MAX_SQL_BYTES:
            return render(env, error_page(413, "Too long", f"the SQL page takes at most "
                                          f"{MAX_SQL_BYTES >> 10} kB of SQL"), request)
        # The form's one field (application/x-www-form-urlencoded, as the page posts it).
        sql = (parse_qs(body.decode("utf-8", "replace")).get("q") or [""])[0]
        if not sql.strip():
            return render(env, sql_page(sql, None), request)
        client_gone = threading.Event()
        finished = anyio.Event()

        async def watch_client() -> None:
            while not finished.is_set():
                if await request.is_disconnected():
                    client_gone.set()
                    return
                with anyio.move_on_after(0.1):
                    await finished.wait()

        async with anyio.create_task_group() as group:
            group.start_soon(watch_client)
            try:
                answer = await anyio.to_thread.run_sync(gate.run, sql, client_gone)
            finally:
                finished.set()
        return render(env, sql_page(sql, answer), request)

    def image(request: Request) -> Response:
        try:
            run_id, qid = _required(request, "run", "qid")
            key = {"run": run_id, "qid": qid, "run_index": _int(request, "index", 0),
                   "msg_idx": _int(request, "msg", 0), "block_idx": _int(request, "block", 0)}
            with live.use() as wh:
                rows = wh.serve_rows("image", **key)
        except NotFound as missing:
            return Response(str(missing), status_code=404, media_type="text/plain")
        except BadRequest as bad:
            return Response(str(bad), status_code=400, media_type="text/plain")
        if not rows or rows[0]["data"] is None or rows[0]["media_type"] not in IMAGE_TYPES:
            return Response("no kept image here", status_code=404, media_type="text/plain")
        data = rows[0]["data"]
        if data.startswith("data:") and "," in data:
            data = data.split(",", 1)[1]
        try:
            raw = base64.b64decode(data, validate=False)
        except (binascii.Error, ValueError):
            return Response("image data is not base64", status_code=422,
                            media_type="text/plain")
        return Response(raw, media_type=rows[0]["media_type"])

    async def server_error(request: Request, exc: Exception) -> Response:
        # The outermost handler answers here: the Guard adds the security headers.
        return Response("internal error; the server's log says more\n", status_code=500,
                        media_type="text/plain", headers=SECURITY_HEADERS)

    routes = [
        Route("/", endpoint(page_home)),
        Route("/board", endpoint(page_board)),
        Route("/heatmap", endpoint(page_heatmap)),
        Route("/questions", endpoint(page_questions)),
        Route("/question", endpoint(page_question)),
        Route("/trajectory", endpoint(page_trajectory)),
        Route("/message", endpoint(page_message)),
        Route("/image", image),
        Route("/compare", endpoint(page_compare)),
        Route("/search", endpoint(page_search)),
        Route("/diff", endpoint(page_diff)),
        Route("/lineage", endpoint(page_lineage)),
        Route("/lineage/diff", endpoint(page_lineage_diff)),
        Route("/rejects", endpoint(page_rejects)),
        Route("/file", endpoint(page_file)),
        Route("/sql", sql_endpoint, methods=["GET", "POST"]),
        Route("/paper", endpoint(page_paper)),
        Route("/failures", endpoint(page_failures)),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        yield
        gate.close()
        live.close()

    hosts = LOOPBACK_HOSTS | {host_of(h) for h in allowed_hosts if h}
    app = Starlette(routes=routes, middleware=[Middleware(Guard, allowed_hosts=hosts)],
                    exception_handlers={500: server_error}, lifespan=lifespan)
    app.state.live = live
    app.state.gate = gate
    return app
