"""`etl serve`: a read-only local web explorer of the warehouse, from the leaderboards down to
every trajectory.

Every page has a stable URL whose parameters are in the query string (run ids hold slashes),
and is also served as JSON (`?format=json`: every table of the page) and, where it shows a
table, as CSV (`?format=csv`, the page's main table; `&table=NAME` for another one).

Everything a model wrote is untrusted text: templates autoescape, nothing from the data is
ever marked safe, links are built here from fixed paths and url-encoded values, and every
response carries a Content-Security-Policy without inline script or style, so even an
escaping mistake could not run a script. The only script is static/app.js (keyboard
navigation)."""

from __future__ import annotations

import base64
import binascii
import csv
import io
import math
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode

import anyio
import anyio.to_thread
import duckdb
import orjson
from jinja2 import Environment, FileSystemLoader
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from etl.api import OUTCOMES, WarehouseError
from etl.query import QueryRefused
from etl.serve.gate import GateAnswer, GateLimits, SqlGate
from etl.serve.live import LiveWarehouse, ServeWarehouse, out_of_memory_message

HERE = Path(__file__).parent
PAGE_CHARS = 10_000  # one page of a long message or tool result
COLLAPSE_CHARS = 1_500  # longer texts start collapsed
SQL_MAX_ROWS = GateLimits.max_rows
SQL_MAX_BYTES = GateLimits.max_bytes
MAX_SQL_BYTES = 1 << 20  # the text of one posted query
# Rows of a table drawn per HTML page; ?start_<table>=N shows the rows from N, with links to
# the previous and next pages (JSON and CSV always hold every row). Bounds the drawing work
# of a request: 200 rows of a comparison take about 20 ms to draw.
HTML_ROWS = 200
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


def url(route: str, **params: Any) -> str:
    """A link inside the app: a fixed path and url-encoded parameters (None left out)."""
    kept = {k: v for k, v in params.items() if v is not None and v != ""}
    return route + ("?" + urlencode(kept) if kept else "")


def trajectory_url(run_id: str, qid: str, run_index: int | None = 0) -> str:
    return url("/trajectory", run=run_id, qid=qid, index=run_index)


@dataclass
class Table:
    """A table of a page: rows as dicts, and for some columns a function giving a link."""

    columns: list[str]
    rows: list[dict[str, Any]]
    links: dict[str, Callable[[dict[str, Any]], str | None]] = field(default_factory=dict)
    note: str = ""
    # Rows drawn per HTML page (None: all, for a table its page already bounds), and the
    # window of the current request (set by render).
    html_rows: int | None = HTML_ROWS
    start: int = 0
    prev_url: str | None = None
    next_url: str | None = None

    @classmethod
    def of(cls, rows: list[dict[str, Any]], columns: list[str] | None = None,
           **links: Callable[[dict[str, Any]], str | None]) -> Table:
        cols = columns if columns is not None else (list(rows[0]) if rows else [])
        return cls(cols, rows, links)

    @property
    def stop(self) -> int:
        """One past the last row of the window drawn in HTML."""
        return len(self.rows) if self.html_rows is None else min(
            len(self.rows), self.start + self.html_rows)

    def cells(self) -> list[list[tuple[Any, str | None]]]:
        """The cells of the rows of the HTML window, each with its link (or None)."""
        return [[(row.get(c), self.links[c](row) if c in self.links else None)
                 for c in self.columns] for row in self.rows[self.start:self.stop]]

    def paginate(self, start: int, page_url: Callable[[int], str]) -> None:
        """Draw the rows from `start` (moved to the start of the last page when past it)."""
        if self.html_rows is None or len(self.rows) <= self.html_rows:
            return
        last = (len(self.rows) - 1) // self.html_rows * self.html_rows
        self.start = min(max(0, start), last)
        if self.start > 0:
            self.prev_url = page_url(max(0, self.start - self.html_rows))
        if self.stop < len(self.rows):
            self.next_url = page_url(self.stop)


@dataclass
class Page:
    template: str
    title: str
    crumbs: list[tuple[str, str]]
    tables: dict[str, Table] = field(default_factory=dict)
    context: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)  # extra JSON fields
    status: int = 200


class NotFound(Exception):
    """The page names something the warehouse does not hold."""


def fmt_value(value: Any) -> str:
    """A cell as text: floats to 4 decimals, None empty."""
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.4f}"
    return str(value)


def score_class(value: Any) -> str:
    """A CSS class for a heat-map cell (inline styles are refused by the CSP)."""
    if not isinstance(value, int | float) or math.isnan(value):
        return "heat-none"
    return f"heat-{max(0, min(10, round(float(value) * 10)))}"


def make_env() -> Environment:
    env = Environment(loader=FileSystemLoader(str(HERE / "templates")), autoescape=True)
    env.filters["fmt"] = fmt_value
    env.globals.update(url=url, trajectory_url=trajectory_url, score_class=score_class,
                       COLLAPSE_CHARS=COLLAPSE_CHARS, PAGE_CHARS=PAGE_CHARS)
    return env


def _json_default(value: Any) -> Any:
    return str(value)


# A cell a spreadsheet would run as a formula starts with one of these (OWASP, "CSV
# Injection"): such a text cell gets a leading single quote, which the spreadsheet shows as
# text. Numbers are written as numbers (a negative one is not a formula).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A value as a CSV cell: None empty, a text that a spreadsheet would take for a formula
    neutralised, anything else as is."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
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


# -- pages -------------------------------------------------------------------------------
HOME = ("Leaderboards", "/")


def page_home(wh: ServeWarehouse, request: Request) -> Page:
    counts: dict[tuple[str, str], dict[str, Any]] = {}
    for row in wh.memo("ranked"):
        board = counts.setdefault((row["benchmark"], row["mode"]), {
            "benchmark": row["benchmark"], "mode": row["mode"], "n_runs": 0,
            "max_questions": 0})
        board["n_runs"] += 1
        board["max_questions"] = max(board["max_questions"], row["n_questions"] or 0)
    boards = list(counts.values())
    return Page("home.html", "Leaderboards", [HOME], {
        "boards": Table.of(boards,
                           benchmark=lambda r: url("/board", benchmark=r["benchmark"],
                                                   mode=r["mode"]),
                           mode=lambda r: url("/heatmap", benchmark=r["benchmark"],
                                              mode=r["mode"]))})


def page_board(wh: ServeWarehouse, request: Request) -> Page:
    benchmark, mode = _required(request, "benchmark", "mode")
    scorer = request.query_params.get("scorer") or None
    shared = request.query_params.get("shared") in ("1", "true", "on")
    scorers = [r["scorer"] for r in wh.board("board_scorers", benchmark, mode)]
    if scorer is not None and scorer not in scorers:
        raise NotFound(f"no scorer {scorer!r} for {benchmark} {mode}")
    ranked = wh.board("ranked", benchmark, mode)
    if scorer is not None:
        scored = {r["run_id"]: r for r in wh.serve_rows(
            "board_by_scorer", benchmark=benchmark, mode=mode, scorer=scorer, shared=shared,
            n_runs=len(ranked))}
        rows = [{"benchmark": benchmark, "mode": mode, "rank": None, "model": r["model"],
                 "n_questions": scored.get(r["run_id"], {}).get("n_questions", 0),
                 "score": scored.get(r["run_id"], {}).get("score"), "score_source": scorer,
                 "default_score": r["score"], "default_score_source": r["score_source"],
                 "display_name": r["display_name"], "run_id": r["run_id"]} for r in ranked]
        rows.sort(key=lambda r: (r["score"] is None, -(r["score"] or 0.0), r["run_id"]))
        for position, row in enumerate(rows):
            # rank() semantics: ties share the rank of the first of them.
            same = position and rows[position - 1]["score"] == row["score"]
            row["rank"] = rows[position - 1]["rank"] if same else position + 1
        note = (f"Scored by {scorer} for every run" + (", on the questions every run has"
                                                       if shared else "")
                + "; no intervals or rank groups (those are computed for the default score"
                  " sources).")
    elif shared:
        rows = wh.board("common", benchmark, mode)
        note = "Only the questions every run of the board answered (leaderboard_common)."
    else:
        rows = ranked
        note = ("Default score source of each run; rank_group: runs not shown to differ "
                "from their group's leader (Holm-adjusted sign test, leaderboard_ranked).")
    if not rows:
        raise NotFound(f"no leaderboard for {benchmark} {mode}")
    heat = url("/heatmap", benchmark=benchmark, mode=mode)
    table = Table.of(rows, model=lambda r: url("/questions", run=r["run_id"]),
                     run_id=lambda r: url("/questions", run=r["run_id"]))
    table.note = note
    title = f"{benchmark} · {mode}"
    return Page("board.html", title, [HOME, (title, url("/board", benchmark=benchmark,
                                                        mode=mode))],
                {"board": table},
                {"benchmark": benchmark, "mode": mode, "scorer": scorer, "shared": shared,
                 "scorers": scorers, "heatmap_url": heat,
                 "runs": [(r["run_id"], r.get("display_name") or r["model"]) for r in rows]})


def page_heatmap(wh: ServeWarehouse, request: Request) -> Page:
    benchmark, mode = _required(request, "benchmark", "mode")
    cells = wh.board("by_task", benchmark, mode)
    if not cells:
        raise NotFound(f"no leaderboard for {benchmark} {mode}")
    tasks: list[str] = []
    runs: dict[str, str] = {}
    grid: dict[tuple[str, str], dict[str, Any]] = {}
    for cell in cells:
        if cell["task"] not in tasks:
            tasks.append(cell["task"])
        runs.setdefault(cell["run_id"], cell["display_name"])
        grid[(cell["run_id"], cell["task"])] = cell
    matrix = [(run_id, name, [(task, grid.get((run_id, task))) for task in tasks])
              for run_id, name in sorted(runs.items(), key=lambda kv: kv[1])]
    title = f"{benchmark} · {mode}"
    return Page("heatmap.html", f"Model × task: {title}",
                [HOME, (title, url("/board", benchmark=benchmark, mode=mode)),
                 ("Model × task", url("/heatmap", benchmark=benchmark, mode=mode))],
                {"cells": Table.of(cells, run_id=lambda r: url("/questions", run=r["run_id"],
                                                                task=r["task"]))},
                {"tasks": tasks, "matrix": matrix})


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
    board = [r for r in wh.memo("ranked") if r["run_id"] == run_id]
    for name in ("score", "ci_low", "ci_high", "score_source", "rank", "rank_group"):
        run[name] = board[0][name] if board else None
    return run


def page_questions(wh: ServeWarehouse, request: Request) -> Page:
    (run_id,) = _required(request, "run")
    task = request.query_params.get("task") or None
    run = _run(wh, run_id)
    rows = wh.serve_rows("run_questions", run=run_id, task=task)
    crumbs = _run_crumbs(run)
    if task:
        crumbs.append((task, url("/questions", run=run_id, task=task)))
    bench = run["benchmark"]
    table = Table.of(
        rows, qid=lambda r: url("/question", benchmark=bench, qid=r["qid"]),
        prediction=lambda r: trajectory_url(run_id, r["qid"], r["first_run_index"]))
    return Page("questions.html", f"{run.get('display_name') or run_id}"
                + (f" · {task}" if task else ""), crumbs, {"questions": table},
                {"run": run, "task": task})


def page_question(wh: ServeWarehouse, request: Request) -> Page:
    benchmark, qid = _required(request, "benchmark", "qid")
    info = wh.serve_rows("question", benchmark=benchmark, qid=qid)
    if not info:
        raise NotFound(f"no question {qid!r} in {benchmark}")
    answers = wh.serve_rows("question_answers", benchmark=benchmark, qid=qid)
    archived = wh.serve_rows("question_archived", benchmark=benchmark, qid=qid)
    superseded = {r["archived_run_id"]: r for r in wh.memo("lineage")}
    for row in archived:
        lineage = superseded.get(row["run_id"], {})
        row["superseded_by_run_id"] = lineage.get("superseded_by_run_id")
        row["reason"] = lineage.get("reason")
    first = info[0]
    crumbs = [HOME]
    return Page("question.html", f"Question {qid}",
                crumbs + [(f"Question {qid}", url("/question", benchmark=benchmark,
                                                  qid=qid))],
                {"answers": Table.of(
                    answers,
                    prediction=lambda r: trajectory_url(r["run_id"], qid, r["run_index"]),
                    display_name=lambda r: url("/questions", run=r["run_id"],
                                               task=first["task"])),
                 "archived": Table.of(
                     archived,
                     prediction=lambda r: trajectory_url(r["run_id"], qid, r["run_index"]),
                     run_id=lambda r: url("/lineage/diff", archived=r["run_id"]))},
                {"info": first, "benchmark": benchmark, "qid": qid},
                {"question": first})


def page_trajectory(wh: ServeWarehouse, request: Request) -> Page:
    run_id, qid = _required(request, "run", "qid")
    run_index = _int(request, "index", 0)
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
                    msg=message["msg_idx"], field=fld, page=1)
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
    return Page("trajectory.html", f"Trajectory {qid} · {rec['display_name']}", crumbs,
                {"messages": Table.of(messages), "tool_calls": Table.of(calls),
                 "images": Table.of(images), "scores": Table.of(scores)},
                {"rec": rec, "messages": messages, "calls_by_msg": calls_by_msg,
                 "images_by_msg": images_by_msg, "prev_url": prev_url, "next_url": next_url,
                 "nav": nav,
                 "question_url": url("/question", benchmark=rec["benchmark"], qid=qid)},
                {"result": rec, "prev": prev_url, "next": next_url})


def page_message(wh: ServeWarehouse, request: Request) -> Page:
    run_id, qid = _required(request, "run", "qid")
    run_index = _int(request, "index", 0)
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
                   page=n)

    back = trajectory_url(run_id, qid, run_index)
    return Page("message.html", f"Message {msg_idx} of {qid} ({fld}), page {page + 1}",
                [HOME, (f"{qid} #{run_index}", back),
                 (f"message {msg_idx} page {page + 1}", page_url(page) or back)],
                {}, {"row": row, "page_no": page, "n_pages": n_pages,
                     "prev_url": page_url(page - 1), "next_url": page_url(page + 1),
                     "back": back + f"#m{msg_idx}", "field": fld},
                {"message": row, "page": page, "n_pages": n_pages})


def page_compare(wh: ServeWarehouse, request: Request) -> Page:
    params = request.query_params
    a, b = params.get("a") or "", params.get("b") or ""
    benchmark = params.get("benchmark") or None
    mode = params.get("mode") or None
    mode_b = params.get("mode_b") or None
    only = params.get("only") or None
    context: dict[str, Any] = {"a": a, "b": b, "benchmark": benchmark, "mode": mode,
                               "mode_b": mode_b, "only": only,
                               "outcomes": ("disagreements", *OUTCOMES), "error": None,
                               "summary": None}
    tables: dict[str, Table] = {}
    data: dict[str, Any] = {}
    status = 200
    if a and b:
        try:
            comparison = wh.comparison(a, b, benchmark, mode, only, mode_b)
        except WarehouseError as error:
            context["error"] = str(error)
            status = 400
        else:
            rows = comparison.questions.to_pylist()
            bench = benchmark or (wh.serve_rows("run", run=comparison.run_a) or [{}])[0].get(
                "benchmark")
            tables["questions"] = Table.of(
                rows, qid=lambda r: url("/question", benchmark=bench, qid=r["qid"]),
                prediction_a=lambda r: (trajectory_url(comparison.run_a, r["qid"])
                                        if r["outcome"] != "only_b" else None),
                prediction_b=lambda r: (trajectory_url(comparison.run_b, r["qid"])
                                        if r["outcome"] != "only_a" else None))
            context.update(summary=comparison.summary, run_a=comparison.run_a,
                           run_b=comparison.run_b)
            data.update(run_a=comparison.run_a, run_b=comparison.run_b,
                        summary=comparison.summary)
    return Page("compare.html", "Compare two runs",
                [HOME, ("Compare", url("/compare", a=a, b=b, benchmark=benchmark, mode=mode,
                                       mode_b=mode_b, only=only))],
                tables, context, data, status)


def page_lineage(wh: ServeWarehouse, request: Request) -> Page:
    rows = wh.memo("lineage")
    return Page("table.html", "Archive lineage", [HOME, ("Archive lineage", "/lineage")],
                {"lineage": Table.of(
                    rows, archived_run_id=lambda r: url("/lineage/diff",
                                                        archived=r["archived_run_id"]),
                    superseded_by_run_id=lambda r: (url("/questions",
                                                        run=r["superseded_by_run_id"])
                                                    if r["superseded_by_run_id"] else None))},
                {"intro": "Which archived run was superseded by which current run, how it "
                          "was matched, and how the answers changed (archive_lineage)."})


def page_lineage_diff(wh: ServeWarehouse, request: Request) -> Page:
    (archived,) = _required(request, "archived")
    rows = [r for r in wh.memo("archive_diff") if r["archived_run_id"] == archived]
    lineage = [r for r in wh.memo("lineage") if r["archived_run_id"] == archived]
    if not lineage:
        raise NotFound(f"no archived run {archived!r}")
    return Page("table.html", f"Archive {archived}",
                [HOME, ("Archive lineage", "/lineage"),
                 (archived, url("/lineage/diff", archived=archived))],
                {"diff": Table.of(
                    rows,
                    archived_prediction=lambda r: (trajectory_url(archived, r["qid"],
                                                                  r["run_index"])
                                                   if r["archived_status"] is not None else None),
                    current_prediction=lambda r: (trajectory_url(r["current_run_id"], r["qid"],
                                                                 r["run_index"])
                                                  if r["current_status"] is not None else None)),
                 "lineage": Table.of(lineage)},
                {"intro": "Before (archived) and after (current) answers, question by "
                          "question (archive_diff)."})


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


def error_page(status: int, title: str, message: str) -> Page:
    return Page("error.html", title, [HOME], {}, {"message": message}, {"error": message},
                status)


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
                page = error_page(404, "Not found", str(missing))
            except BadRequest as bad:
                page = error_page(400, "Bad request", str(bad))
            except duckdb.OutOfMemoryException as error:
                page = error_page(503, "Out of memory", out_of_memory_message(error, resources))
            except (QueryRefused, FileNotFoundError) as error:
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
        Route("/lineage", endpoint(page_lineage)),
        Route("/lineage/diff", endpoint(page_lineage_diff)),
        Route("/rejects", endpoint(page_rejects)),
        Route("/sql", sql_endpoint, methods=["GET", "POST"]),
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
