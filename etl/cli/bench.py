"""`etl bench`: the ingest beside its peers on bench trees (etl/bench.py)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from etl.bench import (
    DEFAULT_SCALING_GB,
    DEFAULT_TREES,
    Settings,
    TreeSpec,
    format_report,
    run_bench,
)
from etl.cli.errors import EtlCommand


def parse_trees(text: str, gb: float) -> list[TreeSpec]:
    """'long-tools:11,many-copies:13:6.5' -> the tree specs (each at gb unless its item
    gives its own size)."""
    from etl.synth.spec import TRAJECTORY_SHAPES

    out = []
    for item in filter(None, (x.strip() for x in text.split(","))):
        shape, _, rest = item.partition(":")
        seed, _, size = rest.partition(":")
        try:
            tree_gb = float(size) if size.strip() else gb
        except ValueError:
            tree_gb = 0.0
        if shape not in TRAJECTORY_SHAPES or not seed.strip().isdigit() or tree_gb <= 0:
            raise click.BadParameter(f"{item!r}: expected SHAPE:SEED or SHAPE:SEED:GB with "
                                     f"SHAPE one of {', '.join(TRAJECTORY_SHAPES)}",
                                     param_hint="--trees")
        out.append(TreeSpec(shape, int(seed), tree_gb))
    if not out:
        raise click.BadParameter("no tree", param_hint="--trees")
    return out


def parse_sizes(text: str) -> list[float]:
    try:
        return sorted(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise click.BadParameter(f"{text!r}: expected sizes in GB such as 0.6,1.2",
                                 param_hint="--scaling-gb") from None


@click.command("bench", cls=EtlCommand)
@click.option("--data", type=click.Path(file_okay=False, path_type=Path),
              default=Path("bench-data"), show_default=True,
              help="Where the bench trees are generated (once, then reused) and measured.")
@click.option("--gb", type=float, default=2.5, show_default=True,
              help="Approximate size of each generated bench tree.")
@click.option("--trees", default=DEFAULT_TREES, show_default=True,
              help="The trees to measure, as SHAPE:SEED items (shapes of `etl synth "
                   "--shape`; SHAPE:SEED:GB for a size other than --gb), comma-separated; "
                   "the first one also gets the scaling rows.")
@click.option("--scaling-gb", default=DEFAULT_SCALING_GB, show_default=True,
              help="Smaller sizes (GB) of the first tree at which the floor, a cold build "
                   "and an append are measured beside the full-size tree; '' for none.")
@click.option("--scale", type=click.Choice(["bench", "full", "demo"]), default="bench",
              show_default=True, help="Tree scale (demo: a quick smoke run of the harness).")
@click.option("--jobs", "-j", type=int, default=0, show_default="one per core",
              help="Parse workers of the measured ingest.")
@click.option("--peer-timeout", type=float, default=3600.0, show_default=True,
              help="Seconds the naive and the dlt row may each take before they are killed "
                   "(the row then says 'timed out after N s').")
@click.option("--peer-memory-mb", type=float, default=8192.0, show_default=True,
              help="Memory (MB, the peer's whole process tree) at which the naive or the "
                   "dlt row is stopped; the machine may be shared.")
@click.option("--dlt/--no-dlt", "with_dlt", default=False, show_default=True,
              help="Also run the dlt peer on each tree (about 5 minutes a 2.5 GB tree).")
@click.option("--cold-builds", type=click.IntRange(min=2), default=2, show_default=True,
              help="Cold builds of each tree at the default settings, counted for the "
                   "out-of-memory target and the peak memory (the first and the last are "
                   "rows of the table).")
@click.option("--json-out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the figures as JSON here.")
def bench_command(data: Path, gb: float, trees: str, scaling_gb: str, scale: str, jobs: int,
                  peer_timeout: float, peer_memory_mb: float, with_dlt: bool,
                  cold_builds: int, json_out: Path | None) -> None:
    """Measure the ingest on three differently shaped bench-scale trees, side by side: the
    orjson parse floor, a naive DuckDB read_json_auto load, dlt (with --dlt), our ingest
    cold, no-op, with one file touched, with one record appended, and cold again; seconds,
    CPU seconds, multiple of the floor, MB/s, peak memory of the process tree, database
    size, load average; then the targets, each met or MISSED on each tree (cold build <= 3x
    the floor and <= half the naive load, append <= 5% of cold and under 2 s, touch <= 5%,
    no-op <= 3%, no cold build out of memory, peak memory < 1 GB, database <= the naive
    one, two cold builds within 2% of each other in size), where the last cold build of
    each tree spent its time (each step and statement of the load, DuckDB's profile) and
    its database its bytes (each table and column), then the scaling rows (cold and
    append as the tree grows). The JSON follows the tables."""
    specs = parse_trees(trees, gb)
    settings = Settings(scale=scale, jobs=jobs, peer_timeout=peer_timeout,
                        peer_memory_mb=peer_memory_mb, with_dlt=with_dlt,
                        cold_builds=cold_builds,
                        notify=lambda line: click.echo(line, err=True))
    report = run_bench(data, specs, settings, parse_sizes(scaling_gb))
    click.echo(format_report(report))
    click.echo(json.dumps(report, indent=2))
    if json_out:
        json_out.write_text(json.dumps(report, indent=2))
