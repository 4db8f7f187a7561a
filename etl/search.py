"""Phrase search over what was said in the trajectories, the one home of its rules for
`etl search` (etl/cli/search.py), `Warehouse.search()` and the explorer's /search page
(sql/queries/search.sql, search_runs.sql).

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
from typing import Any

import duckdb

from etl.errors import EtlError, UnknownName, WarehouseError
from etl.filters import check_filters

ROLES = ("system", "user", "assistant", "tool")
FIELDS = ("content", "reasoning", "arguments")
MAX_PHRASE = 1000
MAX_LIMIT = 1000
CONTEXT_CHARS = 80  # characters of context either side of a match


class SearchError(EtlError, ValueError):
    """The search cannot run as asked (an empty phrase, an unknown role); the message says
    what to change."""


class UnknownSearchFilter(SearchError):
    """A benchmark, mode or model the warehouse does not hold (the message names the closest
    valid values) or an ambiguous model name: a SearchError, so the explorer's search page
    shows it like the others."""

    exit_code = UnknownName.exit_code


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
    try:  # the model resolved to its key (etl/filters.py: display names and aliases too)
        found = check_filters(con, benchmark=query.benchmark, mode=query.mode,
                              model=query.model, task=query.task)
    except WarehouseError as error:
        raise UnknownSearchFilter(str(error)) from None
    runs = [r["run_id"] for r in _rows(con.execute(sql["runs"], {
        "benchmark": found.benchmark, "mode": found.mode, "model": found.model,
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
