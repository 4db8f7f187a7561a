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


def test_the_files_started_first_exist_and_start_first(request) -> None:
    """tests/conftest.py starts the longest files first: each one it names exists (a file
    renamed or moved would fall back to its usual place unnoticed), and the collection
    begins with them in that order."""
    from tests.conftest import LONGEST_FILES

    root = TESTS.parent
    assert [p for p in LONGEST_FILES if not (root / p).is_file()] == []
    collected = []
    for item in request.session.items:
        path = item.nodeid.split("::", 1)[0]
        if not collected or collected[-1] != path:
            collected.append(path)
    present = [p for p in LONGEST_FILES if p in collected]
    assert collected[:len(present)] == present
