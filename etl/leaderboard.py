"""`etl leaderboard`: print the leaderboard views of a warehouse.

The numbers come from the views in sql/10_leaderboard.sql; this module only selects, filters
and renders them. The database is opened read-only, so it works next to a BI tool that holds
the file open, and it can never change the warehouse."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import click
import duckdb

from etl.glossary import board_marks
from etl.output import FORMATS, format_rows
from etl.query import QueryRefused, require_warehouse

DEFAULT_DB = "warehouse.duckdb"


@dataclass(frozen=True)
class Listing:
    """One --by choice: the view it reads, the columns it prints and its order."""

    view: str
    columns: tuple[str, ...]
    order_by: str
    # the same board for any scorer (column scorer), for --scorer; None: default scorer only
    all_scorers_view: str | None = None


LISTINGS: dict[str, Listing] = {
    "model": Listing(
        "leaderboard",
        (
            "benchmark", "mode", "rank", "model", "n_questions", "score", "ci_low", "ci_high",
            "scorer", "split", "run_id",
        ),
        "benchmark, mode, rank, model, run_id",
        "leaderboard_all_scorers",
    ),
    "task": Listing(
        "leaderboard_by_task",
        (
            "benchmark", "mode", "model", "task_group", "task", "n_questions", "score",
            "scorer", "split", "run_id",
        ),
        "benchmark, mode, model, task_group, task, run_id",
        "leaderboard_by_task_all_scorers",
    ),
    "group": Listing(
        "leaderboard_by_group",
        (
            "benchmark", "mode", "model", "task_group", "n_questions", "score", "scorer",
            "split", "run_id",
        ),
        "benchmark, mode, model, task_group, run_id",
        "leaderboard_by_group_all_scorers",
    ),
    # Model-level variants (--board): sql/75_honest_leaderboard.sql, sql/72_error_class.sql.
    "ranked": Listing(
        "leaderboard_ranked",
        (
            "benchmark", "mode", "rank", "rank_group", "model", "n_questions", "score",
            "ci_low", "ci_high", "present", "expected", "coverage", "low_coverage",
            "score_source", "split", "run_id",
        ),
        "benchmark, mode, rank, model, run_id",
    ),
    "common": Listing(
        "leaderboard_common",
        (
            "benchmark", "mode", "rank", "model", "n_questions", "score", "default_score",
            "default_rank", "score_source", "run_id",
        ),
        "benchmark, mode, rank, model, run_id",
    ),
    "without_infra": Listing(
        "leaderboard_without_infra_errors",
        (
            "benchmark", "mode", "rank", "model", "n_questions", "score", "ci_low", "ci_high",
            "n_infra_results", "default_score", "default_rank", "score_source", "run_id",
        ),
        "benchmark, mode, rank, model, run_id",
    ),
}
BOARDS = {"default": "model", "ranked": "ranked", "common": "common",
          "without-infra": "without_infra"}

# Columns the human-readable formats (table, md) leave out: they identify the run, which the
# other columns already do for a current leaderboard; csv/json keep them for tracing.
TRACE_COLUMNS = ("split", "run_id")


def leaderboard_query(
    by: str = "model", benchmark: str | None = None, mode: str | None = None,
    scorer: str | None = None,
) -> tuple[list[str], str, list[Any]]:
    """(columns, SQL, parameters) of the leaderboard listing `by` (a LISTINGS key), filtered
    by benchmark and mode when given: the one home of the query, for the CLI and etl.api.
    Without scorer: each run's default scorer (the public views); with one: that scorer's
    board (the *_all_scorers views; ranks within it), for the model / task / group listings."""
    if by not in LISTINGS:
        raise ValueError(f"unknown leaderboard listing {by!r}; expected one of "
                         f"{', '.join(LISTINGS)}")
    listing = LISTINGS[by]
    conditions = []
    params: list[Any] = []
    view = listing.view
    if scorer is not None:
        if listing.all_scorers_view is None:
            raise ValueError(f"the {by} board is made with each run's default scorer; "
                             "a scorer can be chosen for the model, task and group listings")
        view = listing.all_scorers_view
        conditions.append("scorer = ?")
        params.append(scorer)
    if benchmark is not None:
        conditions.append("benchmark = ?")
        params.append(benchmark)
    if mode is not None:
        conditions.append("mode = ?")
        params.append(mode)
    # View, columns and order come from the fixed LISTINGS table; user values are bound.
    sql = f"SELECT {', '.join(listing.columns)} FROM {view}"
    if conditions:
        sql += " WHERE " + " AND ".join(conditions)
    sql += f" ORDER BY {listing.order_by}"
    return list(listing.columns), sql, params


def fetch_leaderboard(
    con: duckdb.DuckDBPyConnection,
    by: str = "model",
    benchmark: str | None = None,
    mode: str | None = None,
    scorer: str | None = None,
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Rows of the leaderboard listing chosen by `by` (model | task | group | ranked | common |
    without_infra), filtered by benchmark and mode when given, by the given scorer (default:
    each run's default scorer). Returns (column names, rows)."""
    columns, sql, params = leaderboard_query(by, benchmark, mode, scorer)
    return columns, con.execute(sql, params).fetchall()


def _fraction(value: float | None) -> Decimal | None:
    # A Decimal prints exactly 3 decimals and still counts as a number, so the shared
    # formatter right-aligns the column.
    return None if value is None else Decimal(f"{value:.3f}")


def _marks(columns: list[str], rows: list[tuple[Any, ...]]) -> dict[str, list[str]]:
    """run_id -> the warnings of its row (etl.glossary.board_marks), board by board; empty
    when the listing has no run_id or is not one row per run."""
    scorer = next((c for c in ("score_source", "scorer") if c in columns), None)
    if "run_id" not in columns or scorer is None or "task" in columns or "task_group" in columns:
        return {}
    boards: dict[tuple[Any, Any], list[dict[str, Any]]] = {}
    for row in rows:
        record = dict(zip(columns, row, strict=True))
        boards.setdefault((record.get("benchmark"), record.get("mode")), []).append(record)
    return {run: marks for board in boards.values()
            for run, marks in board_marks(board, scorer).items()}


def readable_rows(
    columns: list[str], rows: list[tuple[Any, ...]]
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Columns and rows for reading: scores as fractions with 3 decimals, the interval as one
    `[low, high]` column, run-tracing columns left out; the low_coverage flag (which compares
    a run with the others of its board, not with its split) and a scorer that differs from
    the rest of the board said in words in a `note` column."""
    marks = _marks(columns, rows)
    skipped = (*TRACE_COLUMNS, "ci_high", "low_coverage")
    out_columns: list[str] = []
    for name in columns:
        if name in skipped:
            continue
        out_columns.append("95% CI" if name == "ci_low" else name)
    noted = "low_coverage" in columns or any(marks.values())
    if noted:
        out_columns.append("note")
    out_rows = []
    for row in rows:
        record = dict(zip(columns, row, strict=True))
        cells: list[Any] = []
        for name in columns:
            if name in skipped:
                continue
            value = record[name]
            if name in ("score", "default_score", "coverage"):
                cells.append(_fraction(value))
            elif name == "ci_low":
                low, high = value, record["ci_high"]
                interval = None if low is None or high is None else f"[{low:.3f}, {high:.3f}]"
                cells.append(interval)
            else:
                cells.append(value)
        if noted:
            cells.append("; ".join(marks.get(record.get("run_id"), [])))
        out_rows.append(tuple(cells))
    return out_columns, out_rows


def open_read_only(db: Path) -> duckdb.DuckDBPyConnection:
    """Open the warehouse read-only, or raise a ClickException saying why it cannot be."""
    if not db.is_file():
        raise click.ClickException(
            f"database {db} not found; build it with `etl ingest RESULTS_ROOT --db {db}`"
        )
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error as error:
        raise click.ClickException(f"cannot open {db} read-only: {error}") from error
    try:
        require_warehouse(con, db)
    except QueryRefused as refusal:
        raise click.ClickException(str(refusal)) from None
    return con


@click.command("leaderboard")
@click.option(
    "--db",
    "db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_DB,
    show_default=True,
    help="Warehouse DuckDB file (opened read-only).",
)
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
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(FORMATS)),
    default="table",
    show_default=True,
    help="table and md round scores to 3 decimals; csv and json keep full precision.",
)
def leaderboard_command(
    db: Path, benchmark: str | None, mode: str | None, by: str | None, scorer: str | None,
    board: str, fmt: str
) -> None:
    """Print the leaderboard: current (not archived) runs of full splits, one row per
    benchmark, mode and model, ranked by score.

    Score: per question the mean over its runs, then the mean over the questions present in
    the run (micro), a fraction in [0, 1]. Text benchmarks use the benchmark authors' own
    scorer (authors_text: clinseekagent/scoring/score_text.py rule for rule; the record's
    status is not consulted); mm_bench uses the authors' unified per-question scores where
    the run has them, else set_f1, errors and incomplete results scoring 0. The scorer
    column says which scorer made each number; --scorer shows another one. 95% CI: normal
    approximation on per-question scores, clipped to [0, 1]."""
    if by is not None and board != "default":
        raise click.UsageError("--board applies to the per-model leaderboard; drop --by")
    if scorer is not None and board != "default":
        raise click.UsageError("--board boards use each run's default scorer; drop --scorer")
    con = open_read_only(db)
    try:
        columns, rows = fetch_leaderboard(con, by or BOARDS[board], benchmark, mode, scorer)
    except duckdb.CatalogException as error:
        raise click.ClickException(
            f"{db} has no leaderboard views (built by an older ingest?); "
            f"re-run `etl ingest`: {error}"
        ) from error
    except duckdb.Error as error:
        raise click.ClickException(f"cannot read the leaderboard from {db}: {error}") from error
    finally:
        con.close()
    if fmt in ("table", "md"):
        columns, rows = readable_rows(columns, rows)
    if not rows and fmt == "table":
        click.echo("No leaderboard rows match (current runs of full splits only).", err=True)
    click.echo(format_rows(columns, rows, fmt), nl=False)
