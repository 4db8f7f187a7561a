"""The leaderboard listings (`etl leaderboard`, `Warehouse.leaderboard`): which view each
listing reads, its columns and order, its filters checked against the warehouse, and its rows
made readable for a terminal.

The numbers come from the views in sql/10_leaderboard.sql; this module only selects, filters
and renders them (the command line is etl/cli/leaderboard.py)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import duckdb

from etl.errors import EtlError, UnknownName
from etl.filters import check_filters
from etl.glossary import board_marks


class LeaderboardError(EtlError):
    """The leaderboard cannot be read from this file (no views: built by an older ingest)."""


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
    board (the *_all_scorers views; ranks within it), for the model / task / group listings.
    The values are taken as given: checked_leaderboard_query checks them first."""
    if by not in LISTINGS:
        raise UnknownName("leaderboard listing", by, LISTINGS)
    listing = LISTINGS[by]
    conditions = []
    params: list[Any] = []
    view = listing.view
    if scorer is not None:
        if listing.all_scorers_view is None:
            raise LeaderboardError(
                f"the {by} board is made with each run's default scorer; a scorer can be "
                "chosen for the model, task and group listings")
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


def checked_leaderboard_query(
    con: duckdb.DuckDBPyConnection, by: str = "model", benchmark: Any = None,
    mode: Any = None, scorer: Any = None,
) -> tuple[list[str], str, list[Any]]:
    """leaderboard_query with benchmark, mode and scorer checked against the warehouse
    (etl/filters.py): UnknownName for a value it does not hold, or a scorer with no board
    (saying why). LeaderboardError when the file has no leaderboard views."""
    try:
        found = check_filters(con, benchmark=benchmark, mode=mode, scorer=scorer,
                              board_scorer=True)
    except duckdb.CatalogException as error:
        raise _no_views(error) from None
    return leaderboard_query(by, found.benchmark, found.mode, found.scorer)


def _no_views(error: duckdb.Error) -> LeaderboardError:
    return LeaderboardError("this warehouse has no leaderboard views (built by an older "
                            f"ingest?); re-run `etl ingest`: {error}")


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
    columns, sql, params = checked_leaderboard_query(con, by, benchmark, mode, scorer)
    try:
        return columns, con.execute(sql, params).fetchall()
    except duckdb.CatalogException as error:
        raise _no_views(error) from None


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
