"""Fixtures of the explorer's tests: one Chromium per worker, and the warehouse of
EHR-Bench at its real width."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import build_once, run_etl, worker_copy
from tests.serving import chromium, running_server
from tests.waiting import SAFETY_SECONDS


class Browser:
    """A launched browser whose pages wait for an element or a page as long as the tests'
    safety net (Playwright's default, 30 s, is a claim about the machine's speed)."""

    def __init__(self, launched: object) -> None:
        self._launched = launched

    def new_page(self, **options: object) -> object:
        page = self._launched.new_page(**options)
        page.set_default_timeout(SAFETY_SECONDS * 1000)
        return page

    def __getattr__(self, name: str) -> object:
        return getattr(self._launched, name)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's Chromium through Playwright, started once per worker; each test opens its
    own page (and closes it)."""
    with chromium() as launched:
        yield Browser(launched)


@pytest.fixture(scope="module")
def server(demo_db: Path) -> Iterator[str]:
    """The explorer over the demo warehouse, one per module: its connection holds the file
    open with the server's settings, which no other connection of the process may differ
    from while it runs (tests/serving.py query_rows)."""
    with running_server(demo_db) as base:
        yield base


@pytest.fixture(scope="session")
def wide_db(demo_tree: tuple[Path, dict], tmp_path_factory: pytest.TempPathFactory
            ) -> tuple[Path, dict]:
    """(warehouse, planted phrases) of EHR-Bench at its real width: 45 tasks, 8 models
    (tests/explorer_tree.py), for the explorer's layout and search tests; built once per
    run, this worker's copy."""
    import json

    from tests.explorer_tree import build_wide_tree

    def build(home: Path) -> None:
        planted = build_wide_tree(demo_tree[0], home / "tree")
        run_etl("ingest", str(home / "tree"), "--db", str(home / "wide.duckdb"), "--quiet")
        (home / "planted.json").write_text(json.dumps(planted))

    home = build_once(tmp_path_factory, "wide-warehouse", build)
    return (worker_copy(tmp_path_factory, home / "wide.duckdb"),
            json.loads((home / "planted.json").read_text()))
