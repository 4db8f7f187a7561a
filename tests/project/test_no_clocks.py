"""No test of `make test` depends on how busy the machine is: test modules read no clock and
sleep for nothing (docs/DEVELOPMENT.md, "Writing tests"). They wait for events through
tests/waiting.py; the few uses of time below are not waits, each for the reason given."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
CLOCKS = {"sleep", "time", "time_ns", "monotonic", "monotonic_ns", "perf_counter",
          "perf_counter_ns"}
ALLOWED = {
    ("pipeline/test_lock.py", "time.sleep"):
        "a pause inside the lock, so that an overlap would happen if the lock failed",
    ("pipeline/test_stage.py", "time.sleep"):
        "a slow writer's pace, so that ingests meet half lines; nothing is timed",
    ("pipeline/test_refusals.py", "time.time"):
        "a file-time stamp: the cache files written after it are the fresh ones",
    ("pipeline/test_interrupts.py", "threading.Timer"):
        "a Ctrl-C sent into a query that runs for seconds; either outcome is checked",
    ("project/test_bench.py", "time.perf_counter"):
        "the wall time around `etl bench`, which its own total must be within: an order",
    ("project/test_readme_commands.py", "time.monotonic"):
        "printed for the reader, never asserted",
    ("serve/test_serve_browser.py", "page.wait_for_timeout"):
        "lets Playwright deliver a page's events inside a wait_for",
}


def _clock_calls(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner = node.func.value
        name = owner.id if isinstance(owner, ast.Name) else (
            owner.attr if isinstance(owner, ast.Attribute) else "")
        if name == "time" and node.func.attr in CLOCKS:
            found.add(f"time.{node.func.attr}")
        elif name == "threading" and node.func.attr == "Timer":
            found.add("threading.Timer")
        elif node.func.attr == "wait_for_timeout":
            found.add("page.wait_for_timeout")
    return found


def test_no_test_reads_a_clock_or_sleeps() -> None:
    offenders = sorted(f"{rel}: {call}" for path in TESTS.rglob("test_*.py")
                       for rel in [path.relative_to(TESTS).as_posix()]
                       for call in _clock_calls(path) if (rel, call) not in ALLOWED)
    assert offenders == [], (
        "wait for an event with tests/waiting.py wait_for, prove an order instead of a "
        f"speed, or measure it in make bench: {offenders}")


def test_the_allowed_uses_are_still_there() -> None:
    """An allowance outlives its use only as a loophole."""
    stale = sorted(f"{rel}: {call}" for rel, call in ALLOWED
                   if call not in _clock_calls(TESTS / rel))
    assert stale == []
