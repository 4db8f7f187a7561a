"""A plain (not editable) install works: the wheel carries schema/ and sql/ (as etl/_data/),
the archive overrides and `python -m etl`, and the installed package ingests a synthetic tree
and prints a leaderboard from a directory that is not the checkout.

The wheel is built the way `pip install .` builds it (an isolated build environment: needs
the package registry for setuptools). The fresh virtual environment gets the wheel without
its dependencies, which it borrows from the test environment through a .pth line, so the test
runs offline past the build; `.ci/wheel-check` does the same with a real install."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

import etl

CHECKOUT = Path(etl.__file__).resolve().parent.parent

pytestmark = [pytest.mark.needs_registry, pytest.mark.slow]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out),
                    str(CHECKOUT)], check=True, capture_output=True, text=True)
    [built] = out.glob("clinseek_warehouse-*.whl")
    return built


def test_wheel_carries_schema_sql_and_data_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("schema", "sql"):
        expected = {f"etl/_data/{p.relative_to(CHECKOUT).as_posix()}"
                    for p in (CHECKOUT / folder).rglob("*.sql")}
        assert expected and expected <= names, expected - names
    assert {"etl/archive_overrides.json", "etl/__main__.py", "etl/py.typed"} <= names
    assert not any(n.startswith(("tests/", "schema/", "sql/")) for n in names)


def test_installed_wheel_ingests_and_ranks(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                    "--no-deps", "-q", str(wheel)], check=True, capture_output=True)
    site = subprocess.run([str(python), "-c", "import sysconfig; "
                           "print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # The dependencies (duckdb, pyarrow, ...) of the test environment, not its etl: a path
    # in a .pth file adds the directory without running the .pth files inside it.
    (Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}

    def run(*args: str) -> str:
        proc = subprocess.run([str(python), *args], cwd=work, env=env, capture_output=True,
                              text=True)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    where = run("-c", "import etl, etl.schema; print(etl.__file__); "
                      "print(etl.schema.SCHEMA_DIR); print(etl.schema.SQL_DIR)").split()
    assert all(p.startswith(site) for p in where), where
    assert where[1].endswith("etl/_data/schema")
    run("-m", "etl", "synth", "tree", "--scale", "demo", "--seed", "3")
    out = run("-m", "etl", "ingest", "tree", "--db", "w.duckdb", "-q")
    assert "ingested into w.duckdb" in out
    board = subprocess.run([str(env_dir / "bin" / "etl"), "leaderboard", "--db", "w.duckdb",
                            "--benchmark", "ehr_bench"], cwd=work, env=env,
                           capture_output=True, text=True)
    assert board.returncode == 0, board.stderr
    assert "Claude Opus 4.6" in board.stdout or "claude_opus_4_6" in board.stdout
