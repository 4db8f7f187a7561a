"""`etl lineage`: the lineage of archived runs (etl/lineage.py)."""

from __future__ import annotations

from pathlib import Path

import click

from etl.cli.errors import EtlCommand
from etl.cli.options import db_option, echo_rows, format_option, table_options
from etl.connection import open_warehouse
from etl.lineage import lineage_rows


@click.command("lineage", cls=EtlCommand)
@db_option()
@click.option("--all", "include_same", is_flag=True,
              help="With RUN_ID: list unchanged questions too.")
@format_option()
@table_options
@click.argument("run_id", required=False)
def lineage_command(db: Path, include_same: bool, fmt: str, columns: list[str] | None,
                    wide: bool, run_id: str | None) -> None:
    """Show archived runs, their relation (superseded, duplicate, early, rescoring, orphaned,
    unknown) and the current run that superseded them; with RUN_ID (an _archive/<name> run id
    or the bare name), the questions whose status, normalized answer or score changed between
    that archive and its current run (and those on one side only). An unknown RUN_ID is
    refused (exit 2) with the closest archived runs."""
    con = open_warehouse(db, own_queries_only=True)
    try:
        names, rows = lineage_rows(con, run_id, include_same)
    finally:
        con.close()
    if not rows and fmt == "table":
        click.echo("No archived runs." if run_id is None else "No changed questions.", err=True)
    echo_rows(names, rows, fmt, columns, wide)
