"""Fixtures of the pipeline's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.small_tree import AGENTIC, backdate, build_tree


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """The small tree of tests/small_tree.py under tmp_path, its truncated last line an hour
    old: damage, not a line a writer is still on. (test_load.py builds its own, with the
    line fresh.)"""
    root = tmp_path / "tree"
    build_tree(root)
    backdate(root / AGENTIC / "results.jsonl")
    return root
