"""A copy of the package (etl/, schema/, sql/) a test may change, and an ingest run with it:
how the registry tests show that a new scorer or failure label is its rule plus one registry
entry and nothing else."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]


def copy_package(tmp_path: Path) -> Path:
    """A copy of the project's etl/, schema/ and sql/ under tmp_path/project."""
    copy = tmp_path / "project"
    for part in ("etl", "schema", "sql"):
        shutil.copytree(PROJECT / part, copy / part,
                        ignore=shutil.ignore_patterns("__pycache__", "_data"))
    return copy


def ingest_with(copy: Path, tree: Path, db: Path) -> None:
    """`etl ingest tree --db db` with the copied package; fails the test when it fails."""
    env = {**os.environ, "PYTHONPATH": str(copy)}
    proc = subprocess.run([sys.executable, "-m", "etl.cli", "ingest", str(tree),
                           "--db", str(db), "--quiet"], capture_output=True, text=True,
                          env=env, cwd=db.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
