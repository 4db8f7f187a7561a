"""Waiting for an event, never for a time: a test polls for the state it needs (a server
that answers, a query that runs, a process that is gone) instead of sleeping and hoping.

The bound is a safety net against a hang, far beyond any wait a busy machine causes; it is
never a claim about speed (speed is measured by `make bench` and `make bench-serve`)."""

from __future__ import annotations

import time
from collections.abc import Callable

SAFETY_SECONDS = 600.0


def wait_for(condition: Callable[[], object], what: str, seconds: float = SAFETY_SECONDS,
             every: float = 0.02) -> None:
    """Return as soon as condition() is true; fail naming what never happened."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(every)
