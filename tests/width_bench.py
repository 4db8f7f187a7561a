"""Width at full size (`make bench-width`): an ingest of 100 runs on one board and of
20,000 run directories, each timed and its process tree's peak memory sampled, against the
bounds docs/SAFETY.md states. The suite runs scaled-down versions (tests/pipeline/test_width.py).

    python -m tests.width_bench [--runs 100] [--questions 90] [--dirs 20000] [--out DIR]

Prints one line per ingest (wall and CPU seconds, peak tree RSS, the load average before
and after) and exits 1 when an ingest fails or passes its memory bound."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from tests.wide_tree import measure, write_wide_tree

# The bounds docs/SAFETY.md states for these ingests with the default --memory-limit.
TREE_RSS_BOUND_MB = 1024


def _ingest(root: Path, db: Path, *extra: str) -> bool:
    for path in db.parent.glob(db.name + "*"):
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    before = os.getloadavg()[0]
    result = measure([sys.executable, "-m", "etl.cli", "ingest", str(root), "--db", str(db),
                      "--quiet", *extra])
    ok = result.returncode == 0 and result.peak_tree_rss_mb < TREE_RSS_BOUND_MB
    print(f"{root.name}: exit {result.returncode}, {result.wall_seconds:.0f} s wall, "
          f"{result.cpu_seconds:.0f} s CPU, peak tree RSS {result.peak_tree_rss_mb:.0f} MB "
          f"(bound {TREE_RSS_BOUND_MB}), load average {before:.1f} -> "
          f"{os.getloadavg()[0]:.1f} {'ok' if ok else 'FAILED'}", flush=True)
    if result.returncode:
        print(result.stderr[-2000:], file=sys.stderr)
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100, help="runs on one board")
    parser.add_argument("--questions", type=int, default=90, help="questions of each run")
    parser.add_argument("--dirs", type=int, default=20000, help="run directories, off board")
    parser.add_argument("--out", type=Path, default=None, help="work directory (kept)")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="etl-width-"))
    out.mkdir(parents=True, exist_ok=True)
    ok = True
    board = out / f"board-{args.runs}x{args.questions}"
    if not board.exists():
        write_wide_tree(board, args.runs, args.questions)
    ok &= _ingest(board, out / "board.duckdb")
    dirs = out / f"dirs-{args.dirs}"
    if not dirs.exists():
        write_wide_tree(dirs, args.dirs, 3, split="smoke20")
    ok &= _ingest(dirs, out / "dirs.duckdb")
    if args.out is None:
        shutil.rmtree(out, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
