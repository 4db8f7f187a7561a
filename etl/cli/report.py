"""`etl report`: write the HTML report of etl/report.py."""

from __future__ import annotations

from pathlib import Path

import click

from etl.cli.errors import EtlCommand
from etl.cli.options import db_option
from etl.report import report_summary, write_report


@click.command("report", cls=EtlCommand)
@db_option()
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    default="report.html",
    show_default=True,
    help="HTML file to write (one self-contained file).",
)
def report_command(db: Path, out: Path) -> None:
    """Write one self-contained HTML report: leaderboards with intervals, a model x task
    heatmap, agentic vs one-shot deltas, coverage gaps and reconciliation warnings.
    It needs no network and no script to open."""
    click.echo(report_summary(write_report(db, out), out))
