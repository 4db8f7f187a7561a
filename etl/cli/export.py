"""`etl export`: the Parquet export of etl/export.py."""

from __future__ import annotations

from pathlib import Path

import click

from etl.cli.errors import EtlCommand
from etl.cli.options import db_option
from etl.export import export_parquet, summary_lines


@click.command("export", cls=EtlCommand)
@db_option()
@click.option(
    "--parquet",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Directory to write the Parquet export to (created; see --replace).",
)
@click.option("--replace", is_flag=True, help="Overwrite an earlier export in that directory.")
@click.option(
    "--location",
    "location",
    metavar="URI",
    help="Where Spark / Trino will read the export from (e.g. s3://bucket/clinseek after "
    "copying DIR there): the tables' CREATE TABLE statements point below it. "
    "Default: DIR itself as a file: URI.",
)
def export_command(db: Path, out: Path, replace: bool, location: str | None) -> None:
    """Export every table and view as Parquet for Spark, Trino, Athena, ClickHouse or DuckDB.

    Per-result tables (results, messages, tool_calls, images, question_scores) are
    Hive-partitioned by benchmark / mode / model, the others are one file each; each table
    gets a CREATE TABLE for Spark and Trino (ddl/); the views are written as Parquet
    and as SQL that runs as written on DuckDB, Trino and Spark (views/<dialect>/);
    manifest.json lists row counts, columns, the order to create the views in, the minimum
    engine versions and the ingest the database came from. Guide: docs/EXPORT.md."""
    manifest = export_parquet(db, out, replace=replace, location=location)
    for line in summary_lines(manifest, out):
        click.echo(line)
