"""`etl search`: phrase search over what was said in the trajectories (etl/search.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from etl.api import Warehouse
from etl.cli.errors import EtlCommand
from etl.cli.options import db_option, echo_rows, format_option, table_options
from etl.search import MAX_LIMIT, ROLES, SearchQuery

READABLE = ("run_id", "qid", "run_index", "msg_idx", "call_idx", "role", "field", "match_at",
            "match")


def snippet(hit: dict[str, Any]) -> str:
    """One line of context with the match between » and «."""
    text = f"{hit['before'] or ''}»{hit['matched'] or ''}«{hit['after'] or ''}"
    return " ".join(text.split())


@click.command("search", cls=EtlCommand)
@click.argument("phrase")
@db_option()
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
@format_option("table and md show where each match is and a line of context; csv and json "
               "every column.")
@table_options
def search_command(phrase: str, db: Path, benchmark: str | None, mode: str | None,
                   model: str | None, task: str | None, role: str | None, match_case: bool,
                   include_archived: bool, limit: int, offset: int, fmt: str,
                   columns: list[str] | None, wide: bool) -> None:
    """Find the messages that contain PHRASE: in their content (tool results included),
    reasoning or tool-call arguments, case-insensitively unless --case. The phrase is taken
    as typed (no wildcard): "Error executing", "potassium 5.8", a patient id.

    Prints where each match is (run, question, attempt, message; the call for arguments)
    with a line of context around it; `etl serve` shows the same search at /search, each
    match linked to its message. Matches come in storage order; a message is listed once
    per field. With csv/json the count line goes to stderr. An unknown --benchmark, --mode
    or --model is refused (exit 2) with the closest valid values."""
    query = SearchQuery(phrase, benchmark, mode, model, task, role, match_case,
                        include_archived, limit, offset)
    with Warehouse(db, frames="arrow") as wh:
        result = wh.search_page(query)
    if fmt in ("table", "md"):
        names = list(READABLE)
        rows = [tuple(snippet(h) if c == "match" else h[c] for c in names)
                for h in result.hits]
    else:
        names = list(result.hits[0]) if result.hits else ["run_id"]
        rows = [tuple(h.values()) for h in result.hits]
    if result.hits or fmt != "table":
        echo_rows(names, rows, fmt, columns, wide)
    first = offset + 1
    count = (f"matches {first}-{offset + len(result.hits)}" if result.hits
             else "no match") + (f"; more: --offset {offset + limit}" if result.more else "")
    click.echo(f"{count} ({result.n_runs} runs searched)", err=fmt in ("csv", "json"))
