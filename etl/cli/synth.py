"""`etl synth`: the click layer over etl.synth.generate (which reports its progress to a
function given here: a line per run on stderr for the big scales)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from etl.cli.errors import EtlCommand
from etl.synth.generate import generate
from etl.synth.spec import TRAJECTORY_SHAPES


def _show_progress(bytes_written: int, run_id: str) -> None:
    click.echo(f"  {bytes_written / 1e6:9.1f} MB  {run_id}", err=True)


@click.command("synth", cls=EtlCommand)
@click.argument("out", type=click.Path(path_type=Path, file_okay=True, dir_okay=True))
@click.option("--scale", type=click.Choice(["demo", "full", "bench"]), default="demo",
              show_default=True,
              help="demo: a few questions per task, every file kind, seconds to build; "
                   "full: the real question counts (1800/600/2703) with short trajectories; "
                   "bench: full counts with realistic line sizes, about --bench-gb GB.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Same seed and scale give a byte-identical tree.")
@click.option("--damage", is_flag=True,
              help="Plant the damage real runs show (truncated lines, '}{', NaN, arrays, "
                   "garbage, missing qid, invalid UTF-8) and benign oddities (CRLF, BOM, "
                   "blank lines). Every planted line is listed in OUT.truth.json.")
@click.option("--bench-gb", type=float, default=2.5, show_default=True,
              help="Approximate total size of a --scale bench tree, in GB.")
@click.option("--shape", type=click.Choice(list(TRAJECTORY_SHAPES)), default="default",
              show_default=True,
              help="How the tree spends its text: default (a tool call per ~30k "
                   "characters, the tree every seed has always produced); long-tools (two "
                   "tool calls, each result half the text, up to a megabyte); many-short (a "
                   "tool call per ~400 characters, up to 500 per trajectory); many-copies "
                   "(every text result also in merged, region shard and steal files, and "
                   "long one-shot timelines shared by every model of a question). The tree "
                   "size stays near --bench-gb.")
@click.option("--force", is_flag=True, help="Replace an existing OUT (and its siblings).")
def synth(out: Path, scale: str, seed: int, damage: bool, bench_gb: float, shape: str,
          force: bool) -> None:
    """Write a synthetic ClinSeek results tree at OUT.

    Also writes OUT.external/ (the directory that OUT/agent_ehr_bench/agentic/subset600
    links to, outside the tree) and OUT.truth.json (every run, file, line count, planted
    damage, duplicate copy, archive lineage and summary disagreement), which tests use as
    their oracle. Formats follow docs/FORMATS.md; see docs/SYNTH.md.
    """
    started = time.monotonic()
    try:
        truth = generate(out, scale=scale, seed=seed, damage=damage, bench_gb=bench_gb,
                         force=force, progress=None if scale == "demo" else _show_progress,
                         shape=shape)
    except OSError as exc:
        raise click.ClickException(f"cannot write {out}: {exc}") from None
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    click.echo(f"wrote {out}: {len(truth['runs'])} runs, {len(truth['files'])} files, "
               f"{size / 1e6:.1f} MB (inside the tree) in {time.monotonic() - started:.1f}s; "
               f"truth: {out}.truth.json", file=sys.stderr)
