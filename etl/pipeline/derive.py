"""Derive stage: the tables and views computed from the loaded rows, after the load.

Each step runs in its own transaction and reads the runs the load re-ranked from the temp
table load_runs (every run in a cold build; see etl/pipeline/load.py), replacing only their
rows: an update of one run recomputes that run's best@k and its pairs, not the board's. The
views are created in a cold build only: an update starts from a copy that has them, and the
SQL fingerprint is part of what must match for an update (etl/pipeline/load.py plan_load)."""

from __future__ import annotations

from collections.abc import Callable

import duckdb

from etl.archive import archive_rows
from etl.best_at_k import add_best_at_k
from etl.clusters import build_question_clusters
from etl.comparison import build_comparisons
from etl.inspect_board import add_inspect_scorers
from etl.paper_stats import add_student_t_quantiles
from etl.rows import insert_rows

Step = Callable[[duckdb.DuckDBPyConnection], None]


def add_archives(con: duckdb.DuckDBPyConnection) -> None:
    """archive_runs: what each archived run's name says (small: rewritten whole)."""
    con.execute("DELETE FROM archive_runs")
    cols = [d[0] for d in con.execute("SELECT * FROM runs LIMIT 0").description]
    runs = [dict(zip(cols, row, strict=True))
            for row in con.execute("SELECT * FROM runs ORDER BY run_id").fetchall()]
    insert_rows(con, "archive_runs", archive_rows(runs))


def apply_views(con: duckdb.DuckDBPyConnection) -> None:
    """The views and the rule tables (etl/views.py), a cold build's step. Imported here, not
    at the top: etl.views checks the SQL with sqlglot, whose import is 0.08 s of CPU that
    an update of the published database, which creates no view, would pay on every ingest."""
    from etl.views import apply_views as create_views

    create_views(con)


def derive_steps(full: bool) -> list[Step]:
    """The steps in order: best@k needs the loaded scores and the views need its table; the
    question clusters read the view board_results (every question a board scores); the
    paired comparisons read the leaderboard views and the question clusters, and the
    paper's t quantiles the paper views, so they come after them; the scorers of Inspect
    logs join the registry's rows once apply_views has written those."""
    return [add_archives, add_best_at_k, *([apply_views] if full else []),
            add_inspect_scorers, build_question_clusters, add_student_t_quantiles,
            build_comparisons]
