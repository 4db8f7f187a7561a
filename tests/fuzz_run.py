"""`make fuzz`: every property of the suite once on its long budget (the Hypothesis profile
`fuzz` of tests/budgets.py: random, each `make test` budget 20 times larger unless the
property names its own), then the ingest fuzzer (tests/fuzz/test_fuzz_ingest.py) again and
again with fresh random seeds for the rest of a wall-time budget; it stops at the first
failure.

Hypothesis keeps every failing example in .hypothesis/fuzz (replayed first on the next run)
and the test writes the minimal failing tree to .fuzz-failures/<hash>.json. To keep it as a
regression test, copy that file into tests/fuzz_regressions/: tests/fuzz/test_fuzz_regressions.py
replays every file there on every `make test`.

    python -m tests.fuzz_run --minutes 20
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=20.0, help="wall-time budget")
    parser.add_argument("--batch", type=int, default=200,
                        help="examples per pytest run (each run has a fresh seed)")
    args = parser.parse_args()
    deadline = time.monotonic() + args.minutes * 60
    stats = Path(tempfile.mkstemp(prefix="etl-fuzz-stats-", suffix=".jsonl")[1])
    env = {**os.environ, "ETL_HYPOTHESIS_PROFILE": "fuzz", "ETL_FUZZ_EXAMPLES": str(args.batch),
           "ETL_FUZZ_STATS": str(stats)}
    started, rounds, rc = time.monotonic(), 0, 0
    every = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                            "-n", "2", "-m", "hypothesis", "tests"], cwd=PROJECT, env=env)
    failed = "a property failed, see above" if every.returncode != 0 else ""
    if failed:
        rc, deadline = 1, 0.0
    while time.monotonic() < deadline:
        rounds += 1
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p",
                               "no:cacheprovider", "tests/fuzz/test_fuzz_ingest.py", "-k",
                               "generated_tree"], cwd=PROJECT, env=env)
        if proc.returncode != 0:
            rc, failed = 1, "see .fuzz-failures/"
            break
    totals = {"trees": 0, "files": 0, "lines": 0, "objects": 0}
    for raw in stats.read_text().splitlines():
        for key, value in json.loads(raw).items():
            totals[key] = totals.get(key, 0) + value
    stats.unlink(missing_ok=True)
    minutes = (time.monotonic() - started) / 60
    print(f"fuzz: {rounds} rounds in {minutes:.1f} min, {totals['trees']} trees, "
          f"{totals['files']} files, {totals['lines']} lines, {totals['objects']} records"
          + (f" -- FAILED, {failed}" if rc else ", no failure"))
    return rc


if __name__ == "__main__":
    sys.exit(main())
