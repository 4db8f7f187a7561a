"""Ctrl-C landing inside a finalizer (a ParquetWriter closing in __del__) is raised where
the ingest handles it, not printed as "Exception ignored ... Traceback" and lost."""

from __future__ import annotations

import subprocess
import sys

# SIGINT is sent from inside __del__, and __del__ then runs long enough for Python to act on
# it there: the KeyboardInterrupt is raised inside the finalizer. After it, the main code
# runs a loop that only ends early if the interrupt reaches it.
SCRIPT = """
import os, signal, sys, time
{setup}

class ClosesItself:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            pass

{enter}
    try:
        obj = ClosesItself()
        del obj
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            pass
        print("not interrupted")
    except KeyboardInterrupt:
        print("interrupted")
print("hook restored", sys.unraisablehook is sys.__unraisablehook__)
"""

CASES = {
    "plain python": ("", "if True:"),
    "inside interrupts_redelivered": ("from etl.interrupts import interrupts_redelivered",
                                      "with interrupts_redelivered():"),
}


def _run(case: str) -> subprocess.CompletedProcess:
    setup, enter = CASES[case]
    return subprocess.run([sys.executable, "-c", SCRIPT.format(setup=setup, enter=enter)],
                          capture_output=True, text=True, timeout=60)


def test_plain_python_prints_the_interrupt_and_loses_it() -> None:
    """What the hook is for: without it, the interrupt is printed and the code goes on."""
    proc = _run("plain python")
    assert "Exception ignored" in proc.stderr and "KeyboardInterrupt" in proc.stderr
    assert proc.stdout.splitlines()[0] == "not interrupted"


def test_interrupt_in_a_finalizer_reaches_the_main_code() -> None:
    proc = _run("inside interrupts_redelivered")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    first, restored = proc.stdout.splitlines()
    assert first == "interrupted"
    assert restored == "hook restored True"  # the caller's hook is given back


def test_other_unraisable_errors_still_reach_the_previous_hook() -> None:
    code = ("from etl.interrupts import interrupts_redelivered\n"
            "class Bad:\n    def __del__(self):\n        raise ValueError('boom in del')\n"
            "with interrupts_redelivered():\n    b = Bad()\n    del b\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert "Exception ignored" in proc.stderr and "boom in del" in proc.stderr
