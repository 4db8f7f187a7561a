"""`etl leaderboard`: print the leaderboard listings of etl/leaderboard.py."""

from __future__ import annotations

from pathlib import Path

import click

from etl.cli.errors import EtlCommand
from etl.cli.options import db_option, echo_rows, format_option, table_options
from etl.connection import open_warehouse
from etl.leaderboard import BOARDS, fetch_leaderboard, readable_rows


@click.command("leaderboard", cls=EtlCommand)
@db_option()
@click.option("--benchmark", default=None, help="Only this benchmark (e.g. ehr_bench).")
@click.option("--mode", default=None, help="Only this mode (agentic or oneshot).")
@click.option(
    "--by",
    "by",
    type=click.Choice(["task", "group"]),
    default=None,
    help="Break scores down per task or per task group instead of one row per model.",
)
@click.option(
    "--scorer",
    default=None,
    help="Show the board of this scorer instead of each run's default: authors_text (the "
    "benchmark authors' text scorer, the text default), authors_text_fallback (their "
    "--extract-text-answer-without-finish option), set_f1 (the normalized rule), or "
    "scored / rescored (mm_bench authors' rows). Not with --board.",
)
@click.option(
    "--board",
    type=click.Choice(list(BOARDS)),
    default="default",
    show_default=True,
    help="ranked: with rank groups (runs not significantly different from the group's "
    "leader share a group) and coverage flags; common: only the questions every run of the "
    "board answered; without-infra: infrastructure errors (throttling, timeouts, "
    "connection, SSL) left out instead of scored 0.",
)
@format_option("table and md round scores to 3 decimals; csv and json keep full precision.")
@table_options
def leaderboard_command(
    db: Path, benchmark: str | None, mode: str | None, by: str | None, scorer: str | None,
    board: str, fmt: str, columns: list[str] | None, wide: bool,
) -> None:
    """Print the leaderboard: current (not archived) runs of full splits, one row per
    benchmark, mode and model, ranked by score.

    Score: per question the mean over its runs, then the mean over the questions present in
    the run (micro), a fraction in [0, 1]. Text benchmarks use the benchmark authors' own
    scorer (authors_text: clinseekagent/scoring/score_text.py rule for rule; the record's
    status is not consulted); mm_bench uses the authors' unified per-question scores where
    the run has them, else set_f1, errors and incomplete results scoring 0. The scorer
    column says which scorer made each number; --scorer shows another one. Two 95%
    intervals, each named: the default, clustered by patient (questions about one patient
    are not independent; docs/STATISTICS.md), and the naive one (normal approximation as if
    questions were independent, clipped to [0, 1]); every level (--by task, group) has both.
    The json and csv formats hold every column (the marks' reasons too). An unknown
    --benchmark, --mode or --scorer is refused (exit 2) with the closest valid values."""
    if by is not None and board != "default":
        raise click.UsageError("--board applies to the per-model leaderboard; drop --by")
    if scorer is not None and board != "default":
        raise click.UsageError("--board boards use each run's default scorer; drop --scorer")
    listing = by or BOARDS[board]
    con = open_warehouse(db, own_queries_only=True)
    try:
        names, rows = fetch_leaderboard(con, listing, benchmark, mode, scorer)
    finally:
        con.close()
    if fmt in ("table", "md"):
        names, rows = readable_rows(listing, names, rows)
    if not rows and fmt == "table":
        click.echo("No leaderboard rows match (current runs of full splits only).", err=True)
    echo_rows(names, rows, fmt, columns, wide)
