"""The README's tour: its `console` blocks, each `$ .venv/bin/etl ...` line followed by what
the command printed on the demo warehouse (`make ingest`: the demo tree, seed 7, damaged).

tests/project/test_readme_tour.py runs every command again and compares. After a change of what a
command prints, paste the new output into the README with

    python -m tests.readme_tour --write            # builds a demo warehouse in a temp dir
    python -m tests.readme_tour --write --db warehouse.duckdb   # or uses this one
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
PROMPT = "$ "
ETL = ".venv/bin/etl"
# A terminal of this width: what the tour's tables were printed for.
COLUMNS = "120"
_BLOCK = re.compile(r"^```console\n(.*?)^```\n", re.S | re.M)


@dataclass
class Step:
    command: str  # as the README shows it, without the prompt
    shown: str  # the output the README shows under it
    span: tuple[int, int]  # where the output sits in the README text


def tour(text: str) -> list[Step]:
    """Every `$ .venv/bin/etl ...` line of the README's console blocks, with its output."""
    steps = []
    for block in _BLOCK.finditer(text):
        body, offset = block.group(1), block.start(1)
        lines = body.splitlines(keepends=True)
        position = offset
        current: tuple[str, int] | None = None
        for line in lines + [PROMPT]:  # a sentinel prompt closes the last command
            if line.startswith(PROMPT):
                if current is not None:
                    command, start = current
                    steps.append(Step(command, text[start:position], (start, position)))
                current = None
                if line.startswith(PROMPT + ETL + " "):
                    current = (line[len(PROMPT):].rstrip("\n"), position + len(line))
            position += len(line)
    return steps


def run(command: str, workdir: Path) -> str:
    """What the command prints (stdout and stderr, as a terminal shows them), run in workdir
    with this interpreter's etl in place of .venv/bin/etl."""
    shell = command.replace(ETL, f'"{sys.executable}" -m etl', 1)
    env = {**os.environ, "COLUMNS": COLUMNS}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(shell, shell=True, cwd=workdir, env=env, capture_output=True,
                          text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"{command} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}")
    return proc.stderr + proc.stdout


def workdir_for(db: Path, base: Path) -> Path:
    """A directory where `warehouse.duckdb` (the README's default --db) is db."""
    work = base / "tour"
    work.mkdir(exist_ok=True)
    link = work / "warehouse.duckdb"
    if not link.exists():
        link.symlink_to(db.resolve())
    return work


def build_demo_warehouse(base: Path) -> Path:
    """The warehouse `make ingest` builds (the demo tree, seed 7, with its damage)."""
    tree, db = base / "demo" / "tree", base / "warehouse.duckdb"
    for args in (["synth", str(tree), "--scale", "demo", "--seed", "7", "--damage"],
                 ["ingest", str(tree), "--db", str(db), "--quiet"]):
        subprocess.run([sys.executable, "-m", "etl", *args], check=True, capture_output=True)
    return db


def write(db: Path | None) -> None:
    with tempfile.TemporaryDirectory(prefix="readme-tour-") as tmp:
        base = Path(tmp)
        work = workdir_for(db if db is not None else build_demo_warehouse(base), base)
        text = README.read_text()
        for step in reversed(tour(text)):  # from the end: earlier spans stay valid
            start, end = step.span
            text = text[:start] + run(step.command, work) + text[end:]
        README.write_text(text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", required=True,
                        help="run the tour's commands and paste their output into README.md")
    parser.add_argument("--db", type=Path, help="the demo warehouse (default: build one)")
    write(parser.parse_args().db)
