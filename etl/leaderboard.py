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
from etl.output import NumberText


class LeaderboardError(EtlError):
    """The leaderboard cannot be read from this file (no views: built by an older ingest)."""


@dataclass(frozen=True)
class Listing:
    """One --by / --board choice: the view it reads, the columns it prints and its order.
    A listing of board_rows or board_cells (level: the cells' level) takes any scorer's
    board (--scorer; default: each run's default scorer) over all the questions."""

    view: str
    columns: tuple[str, ...]
    order_by: str
    level: str | None = None  # board_cells level; None: a view of one row per run
    any_scorer: bool = False  # the view has the board_scorer and question_set columns
    # the columns the readable formats (table, md) show, an interval as one column (the
    # default one: json and csv hold the naive one too)
    readable: tuple[str, ...] = ()
    # low column -> (high column, the interval's name) of each interval the listing has
    intervals: tuple[tuple[str, str, str], ...] = (
        ("ci_low", "ci_high", "95% CI clustered"), ("ci_naive_low", "ci_naive_high",
                                                    "95% CI naive"))


# Short headings of the readable formats (json and csv keep the column names).
READABLE_NAMES = {"n_questions": "n"}
# Both intervals of a board_rows / board_cells row: the default (clustered by patient) and
# the naive one. The readable formats show the default as one column named for it.
INTERVALS = ("ci_low", "ci_high", "ci_naive_low", "ci_naive_high")

LISTINGS: dict[str, Listing] = {
    "model": Listing(
        "board_rows",
        (
            "benchmark", "mode", "rank", "model", "n_questions", "score", *INTERVALS,
            "n_clusters", "design_effect", "present", "expected", "most_present",
            "low_coverage", "scorer", "other_scorer", "usual_scorer", "scored_elsewhere",
            "split", "run_id",
        ),
        "benchmark, mode, rank, model, run_id",
        any_scorer=True,
        readable=("benchmark", "mode", "rank", "model", "n_questions", "score", "ci_low",
                  "scorer"),
    ),
    "task": Listing(
        "board_cells",
        (
            "benchmark", "mode", "model", "task_group", "task", "n_questions", "score",
            *INTERVALS, "rank", "scorer", "split", "run_id",
        ),
        "benchmark, mode, model, task_group, task, run_id",
        level="task",
        any_scorer=True,
        readable=("benchmark", "mode", "model", "task_group", "task", "n_questions", "score",
                  "ci_low", "scorer"),
    ),
    "group": Listing(
        "board_cells",
        (
            "benchmark", "mode", "model", "task_group", "n_questions", "score", *INTERVALS,
            "rank", "scorer", "split", "run_id",
        ),
        "benchmark, mode, model, task_group, run_id",
        level="group",
        any_scorer=True,
        readable=("benchmark", "mode", "model", "task_group", "n_questions", "score",
                  "ci_low", "scorer"),
    ),
    # Model-level variants (--board): sql/75_honest_leaderboard.sql, sql/72_error_class.sql.
    "ranked": Listing(
        "leaderboard_ranked",
        (
            "benchmark", "mode", "rank", "rank_group", "model", "n_questions", "score",
            *INTERVALS, "present", "expected", "coverage", "most_present", "low_coverage",
            "score_source", "scorer", "other_scorer", "usual_scorer", "scored_elsewhere",
            "split", "run_id",
        ),
        "benchmark, mode, rank, model, run_id",
        readable=("benchmark", "mode", "rank", "rank_group", "model", "n_questions", "score",
                  "ci_low", "present", "expected", "coverage", "score_source"),
    ),
    "common": Listing(
        "leaderboard_common",
        (
            "benchmark", "mode", "rank", "model", "n_questions", "score", *INTERVALS,
            "default_score", "default_rank", "score_source", "run_id",
        ),
        "benchmark, mode, rank, model, run_id",
        readable=("benchmark", "mode", "rank", "model", "n_questions", "score", "ci_low",
                  "default_score", "default_rank", "score_source"),
    ),
    "without_infra": Listing(
        "leaderboard_without_infra_errors",
        (
            "benchmark", "mode", "rank", "model", "n_questions", "score", "ci_low", "ci_high",
            "n_infra_results", "default_score", "default_rank", "score_source", "run_id",
        ),
        "benchmark, mode, rank, model, run_id",
        readable=("benchmark", "mode", "rank", "model", "n_questions", "score", "ci_low",
                  "n_infra_results", "default_score", "default_rank", "score_source"),
        # this board computes its own interval, the naive one (sql/72_error_class.sql)
        intervals=(("ci_low", "ci_high", "95% CI naive"),),
    ),
}
BOARDS = {"default": "model", "ranked": "ranked", "common": "common",
          "without-infra": "without_infra"}
# The board of board_rows / board_cells a listing reads without --scorer.
DEFAULT_BOARD = "default"

def leaderboard_query(
    by: str = "model", benchmark: str | None = None, mode: str | None = None,
    scorer: str | None = None,
) -> tuple[list[str], str, list[Any]]:
    """(columns, SQL, parameters) of the leaderboard listing `by` (a LISTINGS key), filtered
    by benchmark and mode when given: the one home of the query, for the CLI and etl.api.
    Without scorer: each run's default scorer; with one: that scorer's board (ranks within
    it), for the model / task / group listings. The values are taken as given:
    checked_leaderboard_query checks them first."""
    if by not in LISTINGS:
        raise UnknownName("leaderboard listing", by, LISTINGS)
    listing = LISTINGS[by]
    conditions = []
    params: list[Any] = []
    if scorer is not None and not listing.any_scorer:
        raise LeaderboardError(
            f"the {by} board is made with each run's default scorer; a scorer can be "
            "chosen for the model, task and group listings")
    if listing.any_scorer:
        conditions += ["board_scorer = ?", "question_set = 'all'"]
        params.append(scorer or DEFAULT_BOARD)
    if listing.level is not None:
        conditions.append("level = ?")
        params.append(listing.level)
    if benchmark is not None:
        conditions.append("benchmark = ?")
        params.append(benchmark)
    if mode is not None:
        conditions.append("mode = ?")
        params.append(mode)
    # View, columns and order come from the fixed LISTINGS table; user values are bound.
    sql = f"SELECT {', '.join(listing.columns)} FROM {listing.view}"
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


def readable_rows(
    by: str, columns: list[str], rows: list[tuple[Any, ...]]
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The columns and rows of listing `by` for reading: its readable columns, scores as
    fractions with 3 decimals, each interval as one `[low, high]` column named for what it is
    (the default, clustered by patient, or the naive one); the marks a row needs (fewer
    questions than another run of its board, another scorer than the board's, scored
    elsewhere: etl/glossary.py board_marks, from the listing's mark columns) said in words in
    a `note` column."""
    listing = LISTINGS[by]
    records = [dict(zip(columns, row, strict=True)) for row in rows]
    marks = board_marks(records) if "low_coverage" in columns else {}
    intervals = {low: (high, name) for low, high, name in listing.intervals}
    out_columns = [intervals[c][1] if c in intervals else READABLE_NAMES.get(c, c)
                   for c in listing.readable]
    noted = any(marks.values())
    if noted:
        out_columns.append("note")
    out_rows = []
    for record in records:
        cells: list[Any] = []
        for name in listing.readable:
            value = record[name]
            if name in ("score", "default_score", "coverage"):
                cells.append(_fraction(value))
            elif name in intervals:
                high = record[intervals[name][0]]
                cells.append(None if value is None or high is None
                             else NumberText(f"[{value:.3f}, {high:.3f}]"))
            else:
                cells.append(value)
        if noted:
            cells.append("; ".join(marks.get(record.get("run_id"), [])))
        out_rows.append(tuple(cells))
    return out_columns, out_rows
