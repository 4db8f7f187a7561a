"""The tests mirror the code: every test module lives in a folder named after the package or
area it tests (tests/pipeline, tests/scoring, tests/serve, ...), never at the top of tests/,
where the shared support modules (oracles, tree builders, strategies) live."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_no_test_module_sits_at_the_top_of_tests() -> None:
    stray = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert stray == [], f"move these into the folder of what they test: {stray}"


def test_every_test_folder_is_a_package() -> None:
    folders = {p.parent for p in TESTS.rglob("test_*.py")}
    assert len(folders) >= 10
    for folder in folders:
        assert (folder / "__init__.py").exists(), f"{folder} has no __init__.py"
