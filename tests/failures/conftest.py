"""Fixtures of the failure labels' tests: a read-only connection to the demo warehouse."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest


@pytest.fixture(scope="module")
def con(demo_db: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    c = duckdb.connect(str(demo_db), read_only=True)
    yield c
    c.close()
