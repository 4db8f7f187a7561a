"""The README's two commands, from a fresh clone in a temporary directory, as a new user (and
CI) runs them: `make ingest` builds the warehouse of the demo tree into a `.venv` that holds
what running needs and no test-only package, leaves nothing in the work tree that
.gitignore does not name (no lock file, no report), and `make test` would then add the test
stack to the same `.venv` (`make -n`: CI's own `make test` in its clean clone runs it).

The clone is of this checkout with its uncommitted changes laid over it (what a clone would
be once they are committed). Installing needs the package registry: without one the test is
skipped, and fails under CI (`.ci/run`), where the registries are reachable."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import etl

CHECKOUT = Path(etl.__file__).resolve().parent.parent

pytestmark = [pytest.mark.needs_registry, pytest.mark.slow]

# What running needs (the package's dependencies, the explorer, pandas) and what only the
# tests, the bench or the linters need.
RUN_PACKAGES = {"clinseek-warehouse", "duckdb", "orjson", "click", "sqlglot", "pyarrow",
                "pandas", "starlette", "uvicorn", "jinja2"}
TEST_ONLY_PACKAGES = {"pytest", "hypothesis", "playwright", "pyspark", "dlt", "ruff",
                      "duckdb-engine", "sqlalchemy", "trino-query-parser"}


def _git(*args: str, cwd: Path = CHECKOUT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def _fresh_clone(dest: Path) -> Path:
    """A clone of the checkout, with the work tree's changes (edited, new, deleted files)."""
    _git("clone", "--quiet", str(CHECKOUT), str(dest))
    changed = _git("ls-files", "-z", "--modified", "--others", "--exclude-standard")
    for name in filter(None, changed.split("\0")):
        source, target = CHECKOUT / name, dest / name
        if source.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        else:
            target.unlink(missing_ok=True)
    return dest


def _user_env() -> dict[str, str]:
    """A shell as a new user has it: no virtual environment of ours on PATH or active."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "MAKEFLAGS", "MAKELEVEL")}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep)
        if p and not (Path(p).parent / "pyvenv.cfg").exists())
    return env


def _make(clone: Path, *targets: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", *targets], cwd=clone, env=_user_env(), capture_output=True,
                          text=True, timeout=1800)


def _installed(clone: Path) -> set[str]:
    proc = subprocess.run([str(clone / ".venv/bin/python"), "-m", "pip", "list",
                           "--format", "json"], capture_output=True, text=True, check=True)
    return {p["name"].lower().replace("_", "-") for p in json.loads(proc.stdout)}


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def test_make_ingest_then_make_test_from_a_fresh_clone(tmp_path: Path) -> None:
    if shutil.which("make") is None or not (CHECKOUT / ".git").exists():
        pytest.skip("needs make and a git checkout")
    clone = _fresh_clone(tmp_path / "clone")
    assert not (clone / ".venv").exists()
    uncommitted = _git("status", "--porcelain", "--untracked-files=all", cwd=clone)

    started = time.monotonic()
    install = _make(clone, ".venv/.installed-run")  # the first step of `make ingest`
    if install.returncode != 0:
        message = f"cannot install from the package registry:\n{install.stderr[-1500:]}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    ingest = _make(clone, "ingest")
    seconds = time.monotonic() - started
    assert ingest.returncode == 0, ingest.stdout + ingest.stderr
    assert "ingested into warehouse.duckdb" in ingest.stdout
    assert (clone / "warehouse.duckdb").is_file()

    installed = _installed(clone)
    assert RUN_PACKAGES <= installed, RUN_PACKAGES - installed
    assert not installed & TEST_ONLY_PACKAGES, installed & TEST_ONLY_PACKAGES
    print(f"make ingest from nothing: {seconds:.0f} s, .venv {_du(clone / '.venv') / 1e6:.0f} MB")

    report = _make(clone, "report")
    assert report.returncode == 0, report.stdout + report.stderr
    assert (clone / "build/report.html").is_file()
    # Nothing beside what .gitignore names: no lock file, no report in the work tree.
    assert _git("status", "--porcelain", "--untracked-files=all", cwd=clone) == uncommitted
    assert not list(clone.glob("*.lock")) + list(clone.glob("*/*.lock"))

    # `make test` after `make ingest` adds the test stack to the same .venv (one pip call),
    # then runs ruff and pytest. Shown, not run: CI's own `make test` in its clean clone
    # installs the same stack from nothing (minutes that this test does not spend twice).
    plan = _make(clone, "-n", "test")
    assert plan.returncode == 0, plan.stderr
    assert "pip install" in plan.stdout and ".[serve,pandas,dev]" in plan.stdout, plan.stdout
    assert "ruff check" in plan.stdout and "pytest" in plan.stdout, plan.stdout
    # and a second `make ingest` installs nothing: what running needs is there
    again = _make(clone, "-n", "ingest")
    assert "pip install" not in again.stdout, again.stdout
