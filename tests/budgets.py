"""Hypothesis budgets: how many examples a property gets in `make test` and in `make fuzz`.

`make test` loads the profile `test`: derandomized (the same examples on every run and every
machine, so its result depends on the code alone) and without an example database. Each
property states its own budget with examples(n), sized by what it proves: what the test
costs per example against how many examples it takes to reach every branch of its claim.

`make fuzz` (tests/fuzz_run.py) loads the profile `fuzz`: random examples, failures kept in
.hypothesis/fuzz and replayed first, and every examples(n) budget FUZZ_FACTOR times larger
(a property may name its own fuzz budget). ETL_HYPOTHESIS_PROFILE chooses the profile."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

PROJECT = Path(__file__).resolve().parent.parent
PROFILE_ENV = "ETL_HYPOTHESIS_PROFILE"
FUZZ_FACTOR = 20
# Data-heavy strategies (whole trees, long texts) are slow to draw by design.
SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example,
           HealthCheck.filter_too_much]

settings.register_profile("test", derandomize=True, database=None, deadline=None,
                          print_blob=True)
settings.register_profile("fuzz", derandomize=False, deadline=None, print_blob=True,
                          database=DirectoryBasedExampleDatabase(
                              str(PROJECT / ".hypothesis" / "fuzz")))


def profile() -> str:
    name = os.environ.get(PROFILE_ENV, "test")
    if name not in ("test", "fuzz"):
        raise ValueError(f"{PROFILE_ENV}={name!r}: choose test or fuzz")
    return name


def fuzzing() -> bool:
    return profile() == "fuzz"


def load_profile() -> None:
    settings.load_profile(profile())


def examples(in_make_test: int, in_make_fuzz: int | None = None) -> int:
    """A property's budget: in_make_test examples under `make test`; under `make fuzz`,
    in_make_fuzz (FUZZ_FACTOR times as many when not given)."""
    if fuzzing():
        return in_make_fuzz if in_make_fuzz is not None else in_make_test * FUZZ_FACTOR
    return in_make_test
