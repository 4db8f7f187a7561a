"""What a page handler of the explorer returns: a Page of Tables of Cells, links inside the
app, and NotFound. Its own module so that page modules (app.py, paper.py) share it without
importing each other."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from etl.charts import shorten

# Rows of a table drawn per HTML page; ?start_<table>=N shows the rows from N, with links to
# the previous and next pages (JSON and CSV always hold every row). Bounds the drawing work
# of a request: 200 rows of a comparison take about 20 ms to draw.
HTML_ROWS = 200

HOME = ("Leaderboards", "/")



def url(route: str, **params: Any) -> str:
    """A link inside the app: a fixed path and url-encoded parameters (None left out)."""
    kept = {k: v for k, v in params.items() if v is not None and v != ""}
    return route + ("?" + urlencode(kept) if kept else "")


def trajectory_url(run_id: str, qid: str, run_index: int | None = None) -> str:
    """The trajectory of one attempt (run_index; None: the question's first attempt)."""
    return url("/trajectory", run=run_id, qid=qid, index=run_index)


@dataclass(frozen=True)
class Cell:
    """One drawn cell: its text, the whole value on hover when the text is shortened, a
    link, and its kind (num: a number, right-aligned; name: an id or name, one line;
    text: free text that may wrap between words)."""

    text: str
    title: str | None
    href: str | None
    kind: str


# Columns holding ids (paths: shortened past ID_CHARS, the whole value on hover) or names:
# drawn on one line. Every other string column is free text.
ID_COLUMNS = frozenset({
    "run_id", "archived_run_id", "superseded_by_run_id", "current_run_id", "run_a", "run_b",
    "path", "source_path", "real_path", "file_id"})
NAME_COLUMNS = frozenset({
    "model", "display_name", "model_a", "model_b", "scorer", "score_source", "task",
    "task_group", "qid", "status", "outcome", "change", "benchmark", "mode", "split", "role",
    "tool", "relation", "match_kind", "reason", "parsed_by", "error_class", "error_class_a",
    "error_class_b", "status_a", "status_b", "prediction_source", "prediction_source_a",
    "prediction_source_b", "severity", "archived_status", "current_status", "stop_reason",
    "route", "field", "kind", "mode_source", "model_source", "model_alias", "archive_name"})
# Computed columns whose text is numbers ("[0.495, 0.680]", "90 / 1800"): one line too.
NUMBER_COLUMNS = frozenset({"ci", "ci_naive", "coverage", "agentic", "oneshot", "delta"})
ID_CHARS = 32


def cell_of(column: str, value: Any, href: str | None = None) -> Cell:
    """How one value is drawn in a table (the one rule for every table of the explorer)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return Cell("", None, href, "empty")
    if isinstance(value, bool):
        return Cell("yes" if value else "no", None, href, "name")
    if isinstance(value, int | float):
        return Cell(fmt_value(value), None, href, "num")
    if isinstance(value, list | dict):  # a list of answer items, as JSON text
        return Cell(json.dumps(value, ensure_ascii=False), None, href, "text")
    text = str(value)
    if column in ID_COLUMNS:
        short = shorten(text, ID_CHARS)
        return Cell(short, text if short != text else None, href, "name")
    if column in NUMBER_COLUMNS:
        return Cell(text, None, href, "num")
    if column in NAME_COLUMNS or column in ("steps", "diff", "leaderboard"):
        return Cell(text, None, href, "name")
    return Cell(text, None, href, "text")


@dataclass
class Table:
    """A table of a page: rows as dicts, and for some columns a function giving a link.

    JSON and CSV hold every column of every row; HTML draws html_columns (default: every
    column), where display gives the drawn value of a column (a computed one too) and
    headers its heading."""

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
    html_columns: list[str] | None = None
    display: dict[str, Callable[[dict[str, Any]], Any]] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)

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

    @property
    def drawn(self) -> list[str]:
        return self.html_columns if self.html_columns is not None else self.columns

    def heading(self, column: str) -> str:
        return self.headers.get(column, column)

    def cells(self) -> list[list[Cell]]:
        """The cells of the rows of the HTML window."""
        out = []
        for row in self.rows[self.start:self.stop]:
            out.append([cell_of(c, self.display[c](row) if c in self.display else row.get(c),
                                self.links[c](row) if c in self.links else None)
                        for c in self.drawn])
        return out

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
    """The page names something the warehouse does not hold. links: (label, URL) of the
    pages it may have meant (the closest names, as the command line suggests them)."""

    def __init__(self, message: str, links: list[tuple[str, str]] | None = None) -> None:
        super().__init__(message)
        self.links = links or []


# A \uXXXX escape of a JSON string (a surrogate pair as one), not itself escaped (an even
# number of backslashes before it).
_JSON_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})"
                          r"|(?<!\\)((?:\\\\)*)\\u([0-9a-f]{4})", re.IGNORECASE)


def readable_json(text: str | None, piece: bool = False) -> str | None:
    """JSON text as a reader wants it: every \\uXXXX escape of a printable character (the
    writers' json.dumps escapes everything outside ASCII: \\u68c0\\u67e5 \\u2713) shown as
    the character; escapes of control, quote, backslash and line-separator characters, and
    any text that is not JSON, left as written. piece: the text is a piece cut from JSON (a
    search match and what surrounds it), taken as JSON without parsing it."""
    if not text or "\\u" not in text:
        return text
    if not piece:
        try:
            json.loads(text)
        except ValueError:
            return text

    def character(match: re.Match[str]) -> str:
        if match.group(2) is not None:
            high, low = int(match.group(2), 16), int(match.group(3), 16)
            char = chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            lead = match.group(1)
        else:
            char, lead = chr(int(match.group(5), 16)), match.group(4)
        if not char.isprintable() or char in "\"\\" or 0xD800 <= ord(char) <= 0xDFFF:
            return match.group(0)
        return lead + char

    return _JSON_ESCAPE.sub(character, text)


def fmt_value(value: Any) -> str:
    """A value as text: floats (scores, fractions) to 3 decimals, None empty."""
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.3f}"
    return str(value)
