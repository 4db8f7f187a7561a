"""`python -m etl.cli.serve_bench` (make bench-serve): page latencies of the explorer
(etl/serve/bench.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from etl.cli.errors import EtlCommand
from etl.serve.bench import format_report, missed, run_bench


@click.command("serve-bench", cls=EtlCommand)
@click.option("--db", "db_path", required=True, type=click.Path(exists=True, dir_okay=False,
                                                                 path_type=Path),
              help="Warehouse to serve (bench or full scale for meaningful figures).")
@click.option("--per-type", default=20, show_default=True, help="Sampled URLs per page type.")
@click.option("--repeats", default=3, show_default=True, help="Requests of each URL.")
@click.option("--seed", default=1, show_default=True, help="Seed of the URL sample.")
@click.option("--page", "pages", multiple=True,
              help="Measure only this page type (repeatable; default: every type).")
@click.option("--server-arg", "server_args", multiple=True,
              help="Pass this argument on to etl serve (repeatable), e.g. "
                   "--server-arg=--threads=1.")
def main(db_path: Path, per_type: int, repeats: int, seed: int, pages: tuple[str, ...],
         server_args: tuple[str, ...]) -> None:
    """Measure p50/p95/max latency per page type and the server's peak RSS; exit 1 when a
    target (p95 under 300 ms for every page type, 500 ms for search, peak RSS under 500 MB)
    is missed."""
    report = run_bench(db_path, per_type, repeats, seed, pages, server_args)
    click.echo(format_report(report))
    if missed(report):
        sys.exit(1)


if __name__ == "__main__":
    main()
