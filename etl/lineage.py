"""Archived runs and what superseded them, or the per-question diff of one archive against
its current run (`etl lineage`, etl/cli/lineage.py). Read-only: it only selects from the
lineage views of sql/60_lineage.sql."""

from __future__ import annotations

from typing import Any

import duckdb

from etl.errors import EtlError, UnknownName

LINEAGE_COLUMNS = ("archived_run_id", "relation", "superseded_by_run_id", "match_kind",
                   "reason", "parsed_by", "results_identical", "n_archived_results",
                   "n_current_results", "n_fixed", "n_broke", "n_changed", "n_only_archived",
                   "n_only_current")
DIFF_COLUMNS = ("qid", "run_index", "task", "change", "archived_status", "current_status",
                "archived_f1", "current_f1", "archived_answer", "current_answer",
                "archived_prediction", "current_prediction")

Rows = tuple[list[str], list[tuple[Any, ...]]]


class LineageError(EtlError):
    """The lineage views cannot be read from this file (built by an older ingest)."""


def fetch_lineage(con: duckdb.DuckDBPyConnection) -> Rows:
    """Every archived run with its relation and the current run that superseded it."""
    cursor = con.execute(
        f"SELECT {', '.join(LINEAGE_COLUMNS)} FROM archive_lineage ORDER BY archived_run_id")
    return [d[0] for d in cursor.description], cursor.fetchall()


def fetch_diff(con: duckdb.DuckDBPyConnection, archived_run_id: str, include_same: bool
               ) -> Rows:
    """The questions of one archive that differ from its current run (all with include_same)."""
    cursor = con.execute(
        f"SELECT {', '.join(DIFF_COLUMNS)} FROM archive_diff WHERE archived_run_id = ? "
        "AND (? OR change <> 'same') ORDER BY change, qid, run_index",
        [archived_run_id, include_same])
    return [d[0] for d in cursor.description], cursor.fetchall()


def resolve_archive(con: duckdb.DuckDBPyConnection, name: str) -> str:
    """An archived run id from its run id or its bare archive name; UnknownName naming the
    closest archives when it is neither."""
    rows = con.execute("SELECT archived_run_id, archive_name FROM archive_lineage "
                       "ORDER BY archived_run_id").fetchall()
    for run_id, archive_name in rows:
        if name in (run_id, archive_name):
            return run_id
    raise UnknownName("archived run", name, [r[0] for r in rows] + [r[1] for r in rows if r[1]],
                      listed=[r[0] for r in rows], head=f"no archived run {name!r}")


def lineage_rows(con: duckdb.DuckDBPyConnection, run_id: str | None = None,
                 include_same: bool = False) -> Rows:
    """Every archived run (run_id None), or the changed questions of one archive (its run id
    or bare name; every question with include_same)."""
    try:
        if run_id is None:
            return fetch_lineage(con)
        return fetch_diff(con, resolve_archive(con, run_id), include_same)
    except duckdb.CatalogException as error:
        raise LineageError("this warehouse has no lineage views (built by an older ingest?); "
                           f"re-run `etl ingest`: {error}") from None
