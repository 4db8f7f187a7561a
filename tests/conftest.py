"""Shared fixtures: one synthetic demo tree (with planted damage) and its ingested warehouse,
built once per test session. Tests assert against the generator's truth file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SEED = 7


def run_etl(*args: str, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    """Run the etl command line as a user would, in a child process."""
    proc = subprocess.run([sys.executable, "-m", "etl.cli", *args], capture_output=True,
                          text=True, **kwargs)
    if check and proc.returncode != 0:
        raise AssertionError(f"etl {' '.join(args)} failed ({proc.returncode}):\n"
                             f"{proc.stdout}\n{proc.stderr}")
    return proc


def make_tree(out: Path, *extra: str, seed: int = SEED, scale: str = "demo") -> dict:
    run_etl("synth", str(out), "--scale", scale, "--seed", str(seed), *extra)
    return json.loads(Path(f"{out}.truth.json").read_text())


@pytest.fixture(scope="session")
def demo_tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """(root, truth) of a demo-scale tree with every kind of damage planted."""
    root = tmp_path_factory.mktemp("demo") / "tree"
    truth = make_tree(root, "--damage")
    return root, truth


@pytest.fixture(scope="session")
def demo_db(demo_tree: tuple[Path, dict], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo tree ingested into a warehouse file (do not modify it: copy it first)."""
    root, _ = demo_tree
    db = tmp_path_factory.mktemp("db") / "warehouse.duckdb"
    run_etl("ingest", str(root), "--db", str(db), "--quiet")
    return db


@pytest.fixture(scope="session")
def wide_db(demo_tree: tuple[Path, dict], tmp_path_factory: pytest.TempPathFactory
            ) -> tuple[Path, dict]:
    """(warehouse, planted phrases) of EHR-Bench at its real width: 45 tasks, 8 models
    (tests/explorer_tree.py), for the explorer's layout and search tests."""
    from tests.explorer_tree import build_wide_tree

    root = tmp_path_factory.mktemp("wide") / "tree"
    planted = build_wide_tree(demo_tree[0], root)
    db = root.parent / "wide.duckdb"
    run_etl("ingest", str(root), "--db", str(db), "--quiet")
    return db, planted


@pytest.fixture(scope="session")
def inspect_tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    """(root, logs) of a directory of two Inspect AI logs written by the real Inspect library
    (tests/inspect_logs.py): `agentic`, an .eval log of mockllm/model offered a tool (some
    calls fail), and `oneshot`, a .json log of mockllm/claude-opus-4-6 without tools whose
    headline scorer has a clustered stderr. 6 samples, 3 epochs each."""
    from tests.inspect_logs import write_log

    root = tmp_path_factory.mktemp("inspect") / "logs"
    logs = {"agentic": write_log(root / "agentic"),
            "oneshot": write_log(root / "nested" / "oneshot", fmt="json",
                                 model="mockllm/claude-opus-4-6", tools=False,
                                 partial_first=True)}
    return root, logs


@pytest.fixture(scope="session")
def inspect_db(inspect_tree: tuple[Path, dict[str, Path]],
               tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Inspect logs of inspect_tree ingested (do not modify it: copy it first)."""
    db = tmp_path_factory.mktemp("inspect-db") / "warehouse.duckdb"
    run_etl("ingest", str(inspect_tree[0]), "--db", str(db), "--quiet")
    return db
