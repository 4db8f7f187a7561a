"""Every block of docs/COOKBOOK.md runs against the demo warehouse: SQL through the
read-only API connection (and returns rows), `etl ...` lines as a user would type them, the
Python block as a notebook would run it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

import etl
from tests.conftest import run_etl

COOKBOOK = Path(__file__).resolve().parents[2] / "docs" / "COOKBOOK.md"
BLOCK = re.compile(r"```(sql|sh|python)\n(.*?)```", re.S)


def blocks(kind: str) -> list[str]:
    return [body for k, body in BLOCK.findall(COOKBOOK.read_text(encoding="utf-8"))
            if k == kind]


def test_cookbook_has_about_ten_answers() -> None:
    assert len(re.findall(r"^### ", COOKBOOK.read_text(encoding="utf-8"), re.M)) >= 10
    assert len(blocks("sql")) >= 8 and blocks("sh") and blocks("python")


@pytest.mark.parametrize("index", range(len(blocks("sql"))))
def test_sql_blocks(demo_db: Path, index: int) -> None:
    with etl.open(demo_db, frames="arrow") as wh:
        table = wh.sql(blocks("sql")[index])
    assert table.num_rows > 0, blocks("sql")[index]


@pytest.mark.parametrize("index", range(len(blocks("sh"))))
def test_command_blocks(demo_db: Path, index: int) -> None:
    for line in blocks("sh")[index].splitlines():
        args = shlex.split(line.replace("warehouse.duckdb", str(demo_db)))
        assert args[0] == "etl"
        proc = run_etl(*args[1:])
        assert "(0 rows)" not in proc.stdout and proc.stdout.strip()


def test_python_block(demo_db: Path) -> None:
    code = blocks("python")[0].replace('"warehouse.duckdb"', repr(str(demo_db)))
    namespace: dict = {}
    exec(compile(code, str(COOKBOOK), "exec"), namespace)  # noqa: S102 - our own doc
    assert len(namespace["board"]) > 0  # a pyarrow Table or a DataFrame
    assert len(namespace["trajectory"]) > 0
