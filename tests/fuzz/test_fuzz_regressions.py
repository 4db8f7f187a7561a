"""Trees the fuzzer once failed on (tests/fuzz_regressions/*.json, copied there from
.fuzz-failures/ by whoever fixed the bug): each is ingested again and every line's fate
checked with the fuzzer's own oracle (tests/fuzz_check.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fuzz_check import REGRESSIONS_DIR, ingest_and_check
from tests.strategies import TreeSpec

CASES = sorted(REGRESSIONS_DIR.glob("*.json"))


def test_there_are_saved_cases() -> None:
    assert CASES, f"{REGRESSIONS_DIR} holds the fuzzer's past failures"


@pytest.mark.parametrize("case", CASES, ids=[p.stem for p in CASES])
def test_saved_failure_stays_fixed(case: Path) -> None:
    ingest_and_check(TreeSpec.from_json(json.loads(case.read_text())["tree"]))
