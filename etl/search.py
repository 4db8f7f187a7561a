"""Phrase search over what was said in the trajectories, the one home of its rules for
`etl search`, `Warehouse.search()` and the explorer's /search page (sql/queries/search.sql,
search_runs.sql).

A phrase matches a message when its content (a tool result is the content of a tool
message), its reasoning, or the arguments of one of its tool calls contain the phrase:
case-insensitively (Unicode case folding) unless match_case, surrounding spaces ignored,
every other character as typed (no wildcard, no regular expression: `50%`, `a.b` and `(x)`
mean themselves). The search reads the text as it is stored (no index: docs/SERVE.md,
"Search", has the measurements) and stops once it has the page of matches asked for."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import duckdb

from etl.output import FORMATS, format_rows

ROLES = ("system", "user", "assistant", "tool")
FIELDS = ("content", "reasoning", "arguments")
MAX_PHRASE = 1000
MAX_LIMIT = 1000
CONTEXT_CHARS = 80  # characters of context either side of a match


class SearchError(ValueError):
    """The search cannot run as asked (an empty phrase, an unknown role); the message says
    what to change."""


@dataclass(frozen=True)
class SearchQuery:
    """What to look for and where. benchmark / mode / model (key, display name or alias) /
    task / role narrow the search; include_archived adds the runs under _archive/."""

    phrase: str
    benchmark: str | None = None
    mode: str | None = None
    model: str | None = None
    task: str | None = None
    role: str | None = None
    match_case: bool = False
    include_archived: bool = False
    limit: int = 50
    offset: int = 0

    def checked(self) -> SearchQuery:
        """The query with its phrase trimmed, or SearchError saying what is wrong."""
        phrase = self.phrase.strip()
        if not phrase:
            raise SearchError("give a phrase to search for")
        if len(phrase) > MAX_PHRASE:
            raise SearchError(f"the phrase is {len(phrase)} characters long; at most "
                              f"{MAX_PHRASE} are searched")
        if self.role is not None and self.role not in ROLES:
            raise SearchError(f"unknown role {self.role!r}; expected one of {', '.join(ROLES)}")
        if not 1 <= self.limit <= MAX_LIMIT:
            raise SearchError(f"limit must be between 1 and {MAX_LIMIT}")
        if self.offset < 0:
            raise SearchError("offset must not be negative")
        blank = {k: (v or None) for k, v in (("benchmark", self.benchmark), ("mode", self.mode),
                                              ("model", self.model), ("task", self.task))}
        return SearchQuery(phrase, **blank, role=self.role, match_case=self.match_case,
                           include_archived=self.include_archived, limit=self.limit,
                           offset=self.offset)


@dataclass
class SearchResult:
    """One page of matches (dicts, storage order) and whether more follow it."""

    query: SearchQuery
    hits: list[dict[str, Any]] = field(default_factory=list)
    more: bool = False
    n_runs: int = 0


def literal_pattern(phrase: str) -> str:
    """The phrase as an RE2 pattern matching exactly itself: ASCII letters and digits as
    they are, every other character as a \\x{hex} escape (RE2 still folds case of escaped
    letters under (?i))."""
    return "".join(ch if ch.isascii() and ch.isalnum() else f"\\x{{{ord(ch):x}}}"
                   for ch in phrase)


def has_case(phrase: str) -> bool:
    """True when some character of the phrase has another case (digits, punctuation and
    most CJK have none: then a case-insensitive search is a plain substring search)."""
    return any(ch.lower() != ch or ch.upper() != ch for ch in phrase)


def sql_params(query: SearchQuery, runs: list[str], context: int = CONTEXT_CHARS
               ) -> dict[str, Any]:
    """The bound parameters of sql/queries/search.sql for a checked query, every part of
    it: the messages whole (set part, lo and hi to scan one part)."""
    literal = literal_pattern(query.phrase)
    exact = query.match_case or not has_case(query.phrase)
    flags = "s" if exact else "is"
    return {"runs": runs, "task": query.task, "role": query.role, "case": exact,
            "phrase": query.phrase, "pattern": f"(?i){literal}",
            "prefix_pattern": f"(?{flags})^(.*?)({literal})", "context": context,
            "limit": query.offset + query.limit + 1, "offset": 0,
            "part": "messages", "lo": 0, "hi": ALL_ROWS}


ALL_ROWS = 2**62
# The messages are scanned in this many parts at once, each on its own connection and
# thread (DuckDB runs each query on the thread that asked): the reading and matching of the
# text is nearly all of a search's cost, and it divides (docs/SERVE.md, "Search").
PARTS = 2


def _rows(cursor: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def run_search(con: duckdb.DuckDBPyConnection, query: SearchQuery,
               sql: dict[str, str], parts: int = PARTS) -> SearchResult:
    """One page of matches of query on a warehouse connection. sql: the text of
    sql/queries/search_runs.sql and search.sql (keys runs, search). The messages are read
    in `parts` row ranges at once (a cursor each), then the call arguments; the matches keep
    the storage order of one scan."""
    query = query.checked()
    runs = [r["run_id"] for r in _rows(con.execute(sql["runs"], {
        "benchmark": query.benchmark, "mode": query.mode, "model": query.model,
        "archived": query.include_archived}))]
    result = SearchResult(query, n_runs=len(runs))
    if not runs:
        return result
    base = sql_params(query, runs)
    n_messages = con.execute("SELECT count(*) FROM messages").fetchone()[0]
    step = -(-n_messages // max(1, parts)) or 1
    scans = [{**base, "lo": k * step, "hi": (k + 1) * step if k < parts - 1 else ALL_ROWS}
             for k in range(max(1, parts))] + [{**base, "part": "arguments"}]

    wanted = query.offset + query.limit + 1
    cursors = [con.cursor() for _ in scans]

    def scan(k: int) -> list[dict[str, Any]]:
        try:
            return _rows(cursors[k].execute(sql["search"], scans[k]))
        except duckdb.InterruptException:
            return []  # an earlier part found enough: this one was stopped

    hits: list[dict[str, Any]] = []
    try:
        with ThreadPoolExecutor(len(scans) - 1) as pool:
            running = [pool.submit(scan, k) for k in range(len(scans) - 1)]
            for k, future in enumerate(running):
                hits += future.result()
                if len(hits) >= wanted:  # the later parts come after: stop them
                    for later in cursors[k + 1:len(running)]:
                        later.interrupt()
        if len(hits) < wanted:  # the arguments come after every message
            hits += scan(len(scans) - 1)
    finally:
        for cursor in cursors:
            cursor.close()
    hits = hits[query.offset:wanted]
    names = dict(con.execute("SELECT model, display_name FROM models").fetchall())
    for hit in hits:
        hit["display_name"] = names.get(hit["model"]) or hit["model"]
    result.more = len(hits) > query.limit
    result.hits = hits[:query.limit]
    return result


def highlight(text: str | None, phrase: str | None, match_case: bool = False
              ) -> list[tuple[str, bool]]:
    """text cut into (piece, is_match) around every occurrence of phrase, for drawing marks
    (escaped by the template like any text). No phrase: the whole text, unmarked."""
    if text is None:
        return []
    phrase = (phrase or "").strip()
    if not phrase:
        return [(text, False)]
    flags = 0 if match_case else re.IGNORECASE
    pieces: list[tuple[str, bool]] = []
    last = 0
    for found in re.finditer(re.escape(phrase), text, flags):
        if found.start() > last:
            pieces.append((text[last:found.start()], False))
        pieces.append((found.group(), True))
        last = found.end()
    if last < len(text):
        pieces.append((text[last:], False))
    return pieces


# -- etl search --------------------------------------------------------------------------
READABLE = ("run_id", "qid", "run_index", "msg_idx", "call_idx", "role", "field", "match_at",
            "match")


def snippet(hit: dict[str, Any]) -> str:
    """One line of context with the match between » and «."""
    text = f"{hit['before'] or ''}»{hit['matched'] or ''}«{hit['after'] or ''}"
    return " ".join(text.split())


@click.command("search")
@click.argument("phrase")
@click.option("--db", "db", type=click.Path(dir_okay=False, path_type=Path),
              default="warehouse.duckdb", show_default=True,
              help="Warehouse DuckDB file (opened read-only).")
@click.option("--benchmark", default=None, help="Only this benchmark.")
@click.option("--mode", default=None, help="Only this mode (agentic or oneshot).")
@click.option("--model", default=None, help="Only this model (key, display name or alias).")
@click.option("--task", default=None, help="Only questions of this task.")
@click.option("--role", type=click.Choice(ROLES), default=None,
              help="Only messages of this role (tool: tool results; a call's arguments are "
                   "the assistant's).")
@click.option("--case", "match_case", is_flag=True, help="Match case (default: ignore it).")
@click.option("--archived", "include_archived", is_flag=True,
              help="Look in the runs under _archive/ too.")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, MAX_LIMIT),
              help="Matches to print.")
@click.option("--offset", default=0, show_default=True, type=click.IntRange(0),
              help="Skip this many matches first (the next page).")
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="table",
              show_default=True, help="table and md show where each match is and a line of "
              "context; csv and json every column.")
def search_command(phrase: str, db: Path, benchmark: str | None, mode: str | None,
                   model: str | None, task: str | None, role: str | None, match_case: bool,
                   include_archived: bool, limit: int, offset: int, fmt: str) -> None:
    """Find the messages that contain PHRASE: in their content (tool results included),
    reasoning or tool-call arguments, case-insensitively unless --case. The phrase is taken
    as typed (no wildcard): "Error executing", "potassium 5.8", a patient id.

    Prints where each match is (run, question, attempt, message; the call for arguments)
    with a line of context around it; `etl serve` shows the same search at /search, each
    match linked to its message. Matches come in storage order; a message is listed once
    per field. With csv/json the count line goes to stderr."""
    from etl.api import Warehouse
    from etl.query import QueryRefused

    query = SearchQuery(phrase, benchmark, mode, model, task, role, match_case,
                        include_archived, limit, offset)
    try:
        with Warehouse(db, frames="arrow") as wh:
            result = wh.search_page(query)
    except (SearchError, QueryRefused) as error:
        raise click.ClickException(str(error)) from error
    if fmt in ("table", "md"):
        columns = list(READABLE)
        rows = [tuple(snippet(h) if c == "match" else h[c] for c in columns)
                for h in result.hits]
    else:
        columns = list(result.hits[0]) if result.hits else ["run_id"]
        rows = [tuple(h.values()) for h in result.hits]
    if result.hits or fmt != "table":
        click.echo(format_rows(columns, rows, fmt), nl=False)
    first = offset + 1
    count = (f"matches {first}-{offset + len(result.hits)}" if result.hits
             else "no match") + (f"; more: --offset {offset + limit}" if result.more else "")
    click.echo(f"{count} ({result.n_runs} runs searched)", err=fmt in ("csv", "json"))
