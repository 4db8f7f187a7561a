"""`etl lineage`: archived runs and what superseded them, or the per-question diff of one
archive against its current run. Read-only: it only selects from the lineage views of
sql/60_lineage.sql."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import duckdb

from etl.leaderboard import DEFAULT_DB, open_read_only
from etl.output import FORMATS, format_rows

LINEAGE_COLUMNS = ("archived_run_id", "relation", "superseded_by_run_id", "match_kind",
                   "reason", "parsed_by", "results_identical", "n_archived_results",
                   "n_current_results", "n_fixed", "n_broke", "n_changed", "n_only_archived",
                   "n_only_current")
DIFF_COLUMNS = ("qid", "run_index", "task", "change", "archived_status", "current_status",
                "archived_f1", "current_f1", "archived_answer", "current_answer",
                "archived_prediction", "current_prediction")

Rows = tuple[list[str], list[tuple[Any, ...]]]


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


def resolve_archive(con: duckdb.DuckDBPyConnection, name: str) -> str | None:
    """An archived run id from its run id or its bare archive name."""
    row = con.execute(
        "SELECT archived_run_id FROM archive_lineage WHERE archived_run_id = ? "
        "OR archive_name = ? ORDER BY archived_run_id LIMIT 1", [name, name]).fetchone()
    return row[0] if row else None


@click.command("lineage")
@click.option("--db", "db", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_DB,
              show_default=True, help="Warehouse DuckDB file (opened read-only).")
@click.option("--all", "include_same", is_flag=True,
              help="With RUN_ID: list unchanged questions too.")
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="table",
              show_default=True, help="Output format.")
@click.argument("run_id", required=False)
def lineage_command(db: Path, include_same: bool, fmt: str, run_id: str | None) -> None:
    """Show archived runs, their relation (superseded, duplicate, early, rescoring, orphaned,
    unknown) and the current run that superseded them; with RUN_ID (an _archive/<name> run id
    or the bare name), the questions whose status, normalized answer or score changed between
    that archive and its current run (and those on one side only)."""
    con = open_read_only(db)
    try:
        if run_id is None:
            columns, rows = fetch_lineage(con)
        else:
            archived = resolve_archive(con, run_id)
            if archived is None:
                raise click.ClickException(
                    f"no archived run {run_id!r} in {db}; `etl lineage --db {db}` lists them")
            columns, rows = fetch_diff(con, archived, include_same)
    except duckdb.CatalogException as error:
        raise click.ClickException(
            f"{db} has no lineage views (built by an older ingest?); re-run `etl ingest`: "
            f"{error}") from error
    except duckdb.Error as error:
        raise click.ClickException(f"cannot read lineage from {db}: {error}") from error
    finally:
        con.close()
    if not rows and fmt == "table":
        click.echo("No archived runs." if run_id is None else "No changed questions.", err=True)
    click.echo(format_rows(columns, rows, fmt), nl=False)
