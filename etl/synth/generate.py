"""Entry point of the generator: OUT, OUT.external and OUT.truth.json."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from etl.errors import EtlError
from etl.synth import spec
from etl.synth.layout import EXTERNAL_SUBDIR, build, make_ctx
from etl.synth.truth import build_truth
from etl.synth.writer import Dir


class SynthError(EtlError):
    """A user-facing problem (existing output, bad option); printed without a traceback."""


def sibling_paths(out: Path) -> tuple[Path, Path]:
    return Path(str(out) + ".external"), Path(str(out) + ".truth.json")


# Every file of a synthetic tree is dated here: the runs it depicts are finished, so a
# truncated last line is damage, not a line a writer is still on (etl/pipeline/segments.py judges
# the last line of a results file modified in the last --in-progress-seconds as in
# progress). A fixed instant also keeps files.mtime_ns the same from one synth to the next.
SYNTH_MTIME_NS = 1_767_225_600 * 10**9  # 2026-01-01T00:00:00Z


def settle_mtimes(top: Path) -> None:
    for dirpath, _dirs, names in os.walk(top):
        for name in names:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                os.utime(path, ns=(SYNTH_MTIME_NS, SYNTH_MTIME_NS))


def generate(out: Path, *, scale: str = "demo", seed: int = 0, damage: bool = False,
             bench_gb: float = 2.5, force: bool = False,
             progress: Callable[[int, str], None] | None = None,
             shape: str = "default") -> dict[str, Any]:
    """Write a synthetic results tree at `out`; returns the truth (also written to
    OUT.truth.json). shape names how agentic trajectories spend their payload
    (spec.TRAJECTORY_SHAPES); "default" is the tree every seed has always produced.
    progress, when given, is called (bytes written so far, run id) as each run starts."""
    if scale not in spec.SCALES:
        raise SynthError(f"unknown scale {scale!r}; choose one of {', '.join(spec.SCALES)}")
    if shape not in spec.TRAJECTORY_SHAPES:
        raise SynthError(f"unknown shape {shape!r}; choose one of "
                         f"{', '.join(spec.TRAJECTORY_SHAPES)}")
    if bench_gb <= 0:
        raise SynthError("--bench-gb must be positive")
    external, truth_path = sibling_paths(out)
    existing = [p for p in (out, external, truth_path) if p.exists() or p.is_symlink()]
    if existing and not force:
        raise SynthError(f"{existing[0]} already exists; pass --force to overwrite it")
    for p in existing:
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()
    out.mkdir(parents=True)
    external.mkdir()
    ctx = make_ctx(seed, spec.SCALES[scale], damage, bench_gb, progress,
                   spec.TRAJECTORY_SHAPES[shape])
    root = Dir(out, "", ctx.ledger)
    # relative link from OUT/agent_ehr_bench/agentic/ to OUT.external/<subdir>
    ext_target = os.path.join("..", "..", "..", external.name, EXTERNAL_SUBDIR)
    build(ctx, root, Dir(external, "", ctx.ledger), ext_target)
    for top in (out, external):
        settle_mtimes(top)
    truth = build_truth(seed=seed, scale=scale, damage=damage, external_dir=external.name,
                        runs=ctx.runs, archives=ctx.archives, ledger=ctx.ledger,
                        raw_runs=ctx.raw_runs)
    truth_path.write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
    return truth
